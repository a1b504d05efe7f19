"""The op coverage table (`xlinalg.coverage.table`) is derived from the case lists the tests run."""

from __future__ import annotations

import io

from xlinalg.coverage.rows import NOT_IREE, CoverageRow
from xlinalg.coverage.table import (
    coverage_rows,
    format_coverage,
    print_coverage,
    register,
)
from xlinalg.coverage import linalg_samples as samples


def test_one_row_per_table_op_with_the_tested_cases() -> None:
    rows = {r.op: r for r in coverage_rows()}
    for name in samples.TABLE_OPS:
        row = rows[f"linalg.{name}"]
        assert row.run.split(",") == [e for n, e in samples.RUN_CASES if n == name]
        assert row.tiled.split(",") == [e for n, e in samples.TILED_CASES if n == name]
        assert row.generalize.split(",") == [e for n, e in samples.GENERALIZE_CASES if n == name]
        assert row.verify == f"{len(samples.verify_cases(name))} rules"
        assert row.parse == (NOT_IREE if name in samples.NOT_UPSTREAM else "yes+iree")


def test_the_table_tests_parametrize_over_the_same_lists() -> None:
    import linalg_table_cases
    import test_linalg_table

    assert test_linalg_table.ROUND_TRIP_OPS is samples.ROUND_TRIP_OPS
    assert test_linalg_table.GENERALIZE_CASES is samples.GENERALIZE_CASES
    assert [c.text for c in test_linalg_table.VERIFY_CASES] == [
        c.text for c in samples.all_verify_cases()
    ]
    assert linalg_table_cases.RUN_CASES is samples.RUN_CASES
    assert linalg_table_cases.TILED_CASES is samples.TILED_CASES


def test_the_table_test_files_cover_every_case() -> None:
    """The (element type, group) parametrizations of the run/tiled test files cover every
    entry of `RUN_CASES` / `TILED_CASES`, and each file parametrizes over its group."""
    import importlib

    from linalg_table_cases import RUN_GROUPS, TILED_GROUPS, is_windowed

    run = {elt for elts in RUN_GROUPS.values() for elt in elts}
    assert {e for _, e in samples.RUN_CASES} <= run
    tiled = {group for groups in TILED_GROUPS.values() for group in groups}
    assert {(e, is_windowed(n)) for n, e in samples.TILED_CASES} <= tiled
    for groups in (RUN_GROUPS, TILED_GROUPS):
        for file, entries in groups.items():
            module = importlib.import_module(file.removesuffix(".py"))
            tests = [
                getattr(module, t)
                for t in dir(module)
                if t.startswith("test_") and hasattr(getattr(module, t), "pytestmark")
            ]
            assert any(_parametrized_over(t) is entries for t in tests), file
    # every op in every element type it takes, all eight types present
    assert {e for _, e in samples.RUN_CASES} == set(samples.RUNNABLE)
    for name in samples.TABLE_OPS:
        types = samples.dtypes_of(name)
        assert [e for n, e in samples.TILED_CASES if n == name] == list(types)


def test_print_and_register() -> None:
    out = io.StringIO()
    print_coverage(out)
    text = out.getvalue()
    assert text.splitlines()[0].split() == ["op", "parse", "verify", "generalize", "run", "tiled"]
    assert "linalg.conv_2d_nhwc_hwcf " in text and "linalg.fill_rng_2d " in text

    def extra() -> list[CoverageRow]:
        return [CoverageRow("test.op", "yes", "-", "-", "-", "-")]

    register(extra)
    try:
        assert "test.op" in format_coverage()
    finally:
        from xlinalg.coverage import table as coverage

        coverage._SOURCES.remove(extra)


def _parametrized_over(test: object) -> object:
    (mark,) = [m for m in test.pytestmark if m.name == "parametrize"]  # type: ignore[attr-defined]
    return mark.args[1]


def test_hand_written_op_tests_parametrize_over_the_library_lists() -> None:
    import test_linalg_map_reduce
    import test_linalg_pack
    import test_linalg_softmax
    import test_linalg_winograd

    from xlinalg.coverage import linalg_handwritten_cases as hw

    assert (
        _parametrized_over(test_linalg_map_reduce.test_verifier_messages)
        is hw.MAP_REDUCE_VERIFY_CASES
    )
    assert _parametrized_over(test_linalg_map_reduce.test_dtypes) is hw.MAP_REDUCE_DTYPES
    assert _parametrized_over(test_linalg_softmax.test_verifier) is hw.SOFTMAX_VERIFY_CASES
    assert _parametrized_over(test_linalg_pack.test_verifier_rules) is hw.PACK_VERIFY_CASES
    assert _parametrized_over(test_linalg_winograd.test_verifier) is hw.WINOGRAD_VERIFY_CASES
    import test_linalg_generic

    assert _parametrized_over(test_linalg_generic.test_verifier_messages) is hw.GENERIC_VERIFY_CASES
    for cases in (hw.RUN_CASES, hw.TILED_CASES, hw.GENERALIZE_CASES):  # keyed tests exist
        for key in cases:
            file, test = key.split("::")
            assert hasattr(__import__(file.removesuffix(".py")), test), key
    rows = {r.op: r for r in coverage_rows()}
    unpack_rules = sum(1 for text, _ in hw.PACK_VERIFY_CASES if "linalg.unpack" in text)
    assert rows["linalg.pack"].verify == f"{len(hw.PACK_VERIFY_CASES) - unpack_rules} rules"
    assert rows["linalg.unpack"].verify == f"{unpack_rules} rules"
    assert rows["linalg.map"].run.split(",") == ["f16", "bf16", "f32", "f64", "i8", "i16", "i64"]
    assert rows["linalg.reduce"].tiled == "f64,i32"


def test_linalg_ext_tests_parametrize_over_the_library_lists() -> None:
    import test_linalg_ext_attention
    import test_linalg_ext_exec
    import test_linalg_ext_layout
    import test_linalg_ext_ops

    from xlinalg.coverage import linalg_ext_cases as cases
    from xlinalg.coverage.linalg_ext_samples import SAMPLES

    assert test_linalg_ext_ops.CASES is SAMPLES
    assert _parametrized_over(test_linalg_ext_ops.test_verifier_messages) is cases.VERIFY_CASES
    assert (
        _parametrized_over(test_linalg_ext_exec.test_sort_multi_operand_stable) is cases.SORT_TILES
    )
    assert _parametrized_over(test_linalg_ext_exec.test_scan_vs_cumsum) is cases.SCAN_CASES
    assert _parametrized_over(test_linalg_ext_exec.test_topk_ties_keep_first) is cases.TOPK_CASES
    assert (
        _parametrized_over(test_linalg_ext_exec.test_scatter_duplicate_indices_accumulate)
        is cases.SCATTER_TILES
    )
    assert (
        _parametrized_over(test_linalg_ext_exec.test_scatter_index_depth_two_with_dimension_map)
        is cases.SCATTER_DEPTH_TWO_TILES
    )
    assert _parametrized_over(test_linalg_ext_exec.test_reverse_vs_flip) is cases.REVERSE_TILES
    assert _parametrized_over(test_linalg_ext_exec.test_fft_stages_vs_numpy_fft) is cases.FFT_CASES
    assert (
        _parametrized_over(test_linalg_ext_attention.test_attention_vs_softmax)
        is cases.ATTENTION_CASES
    )
    assert (
        _parametrized_over(test_linalg_ext_layout.test_winograd_transforms_compute_a_convolution)
        is cases.WINOGRAD_CASES
    )
    assert _parametrized_over(test_linalg_ext_layout.test_tiled_padded_pack) is cases.PACK_TILES
    assert (
        _parametrized_over(test_linalg_ext_layout.test_tiled_unpack_drops_padding)
        is cases.UNPACK_TILES
    )
    rows = {r.op: r for r in coverage_rows()}
    import test_linalg_ext_dtypes
    import test_tiling_interface_ext_tensors

    assert _parametrized_over(test_linalg_ext_dtypes.test_dtype) is cases.DTYPE_CASES
    assert (
        _parametrized_over(test_tiling_interface_ext_tensors.test_tensor_tiling_matches_numpy)
        is cases.TENSOR_TILED_CASES
    )
    assert rows["iree_linalg_ext.sort"].parse == "yes+iree"
    assert rows["iree_linalg_ext.sort"].tiled == "f16,f32,f64,i32"
    assert rows["iree_linalg_ext.attention"].parse == "yes+iree"  # printed in IREE 3.13's syntax
    assert rows["iree_linalg_ext.set_encoding"].run == "f16,f32,f64,i32"  # materialized by compile
    assert rows["iree_linalg_ext.set_encoding"].tiled == "f32,f64 (materialized)"
    assert rows["iree_linalg_ext.unset_encoding"].tiled == "f32,f64 (materialized)"
    assert rows["iree_linalg_ext.upper_bound_tile_size"].tiled == "n/a (folds)"
    assert rows["iree_linalg_ext.scatter"].verify == "9 rules"
