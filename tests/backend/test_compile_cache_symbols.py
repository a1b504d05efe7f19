"""The text fast path of `check_external_symbols` accepts only what the full
instruction walk accepts: anything unusual falls back to the walk and is rejected there."""

from __future__ import annotations

import pytest

from xlinalg.backend.jit import JitModule
from xlinalg.backend.symbols import _only_direct_calls
from xlinalg.errors import BackendError
from xlinalg.lowering.abi import FunctionSignature, LoweredModule


def _jit(ir: str) -> JitModule:
    sig = FunctionSignature("f", ())
    return JitModule(LoweredModule(llvm_ir=ir, functions={"f": sig}))


@pytest.mark.parametrize(
    ("ir", "message"),
    [
        # an '@name(' inside the asm string must not pass for a direct call
        (
            'define void @f() {\n  call void asm sideeffect "call @f(", ""()\n  ret void\n}',
            "inline assembly",
        ),
        # a direct-looking call of a global variable is not a call of a function
        ("@g = global i32 0\ndefine void @f() {\n  call void @g()\n  ret void\n}", "indirect call"),
        ("define void @f(ptr %p) {\n  tail call void %p()\n  ret void\n}", "indirect call"),
    ],
)
def test_unusual_calls_still_rejected(ir: str, message: str) -> None:
    with pytest.raises(BackendError, match=message):
        _jit(
            ir.replace("define void @f(ptr %p)", "define void @f()").replace(
                "tail call void %p()", "%p = inttoptr i64 4096 to ptr\n  tail call void %p()"
            )
        )


def test_fast_path_decisions() -> None:
    fns = {"f", "g", "llvm.fma.f32"}
    assert _only_direct_calls("  %r = call float @llvm.fma.f32(float %a, float %b, float %c)", fns)
    assert _only_direct_calls("  tail call void @g(ptr @f)", fns)
    assert not _only_direct_calls("  call void %p()", fns)
    assert not _only_direct_calls('  call void asm "x", ""()', fns)
    assert not _only_direct_calls("  call void @h()", fns)  # not a function of the module
    assert not _only_direct_calls("  %r = call %T @g()", fns)  # named type: walk instead
    assert not _only_direct_calls("  invoke void @g() to label %a unwind label %b", fns)


def test_direct_calls_between_module_functions_accepted() -> None:
    jit = _jit(
        "define void @g() {\n  ret void\n}\ndefine void @f() {\n  call void @g()\n  ret void\n}"
    )
    jit.function("f")()
