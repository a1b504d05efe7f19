"""Run xlinalg (and its tests) as if on another x86_64 CPU, to find what assumes this one.

    PYTHONPATH=scripts/emulate_host XLINALG_EMULATE_CPU=znver3 pytest

Python imports `sitecustomize` at start-up from the path, so every interpreter started
with this folder on PYTHONPATH answers llvmlite's host queries
(`get_host_cpu_name`, `get_host_cpu_features`) for the CPU named by XLINALG_EMULATE_CPU:

* `znver3` -- AMD Zen 3: AVX2 and FMA, no AVX-512 (nor AVX512-BF16);
* `skylake-avx512` -- Intel Skylake-SP: AVX-512 F/CD/BW/DQ/VL only, Intel's scheduling model.

The code LLVM generates for that CPU runs here as long as this machine has every feature
it keeps (only features are removed). Unset or another name: nothing is changed. Child
interpreters the tests start with `support.cli_env` (PYTHONPATH replaced) run on the real
host. Both CPUs pass the whole suite (2026-11-26, on a znver4 host).
"""

from __future__ import annotations

import os

_CPU = os.environ.get("XLINALG_EMULATE_CPU", "")
_KEPT_AVX512 = {
    "skylake-avx512": {"avx512f", "avx512cd", "avx512bw", "avx512dq", "avx512vl"},
    "znver3": set(),
}
_DROPPED = {
    "skylake-avx512": {"gfni", "vaes", "vpclmulqdq", "rdpid", "sse4a", "clzero", "shstk", "sha"},
    "znver3": set(),
}

if _CPU in _KEPT_AVX512:
    import llvmlite.binding as _llvm

    _host_features = _llvm.get_host_cpu_features

    def _features():  # type: ignore[no-untyped-def]
        features = _host_features()
        for name in list(features):
            wide = name.startswith(("avx512", "amx", "avx10", "evex512"))
            if (wide and name not in _KEPT_AVX512[_CPU]) or name in _DROPPED[_CPU]:
                features[name] = False
        return features

    _llvm.get_host_cpu_features = _features
    _llvm.get_host_cpu_name = lambda: _CPU
