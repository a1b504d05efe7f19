"""The op coverage table (`xlinalg.coverage.table`) is derived from the case lists the tests run."""

from __future__ import annotations

import io

from xlinalg.coverage import linalg_handwritten_cases as handwritten
from xlinalg.coverage import linalg_samples as samples
from xlinalg.coverage import table as coverage
from xlinalg.coverage.rows import NOT_IREE, CoverageRow
from xlinalg.coverage.table import (
    coverage_rows,
    format_coverage,
    print_coverage,
    register,
)

from support import linalg_table
from support.linalg_table import RUN_GROUPS, TILED_GROUPS, is_windowed
from support.source import functions_of, module_name, parametrizations, parametrized_over

SAMPLES = "xlinalg.coverage.linalg_samples"


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
    table = "test_linalg_table.py"
    assert module_name(table, "ROUND_TRIP_OPS") == f"{SAMPLES}.ROUND_TRIP_OPS"
    assert module_name(table, "GENERALIZE_CASES") == f"{SAMPLES}.GENERALIZE_CASES"
    assert module_name(table, "VERIFY_CASES") == f"{SAMPLES}.all_verify_cases()"
    assert linalg_table.RUN_CASES is samples.RUN_CASES
    assert linalg_table.TILED_CASES is samples.TILED_CASES


def test_the_table_test_files_cover_every_case() -> None:
    """The (element type, group) parametrizations of the run/tiled test files cover every
    entry of `RUN_CASES` / `TILED_CASES`, and each file parametrizes over its group."""
    run = {elt for elts in RUN_GROUPS.values() for elt in elts}
    assert {e for _, e in samples.RUN_CASES} <= run
    tiled = {group for groups in TILED_GROUPS.values() for group in groups}
    assert {(e, is_windowed(n)) for n, e in samples.TILED_CASES} <= tiled
    for name, groups in (("RUN_GROUPS", RUN_GROUPS), ("TILED_GROUPS", TILED_GROUPS)):
        for file in groups:
            group = f"support.linalg_table.{name}[{file!r}]"
            assert any(group in parametrizations(file, test) for test in functions_of(file)), file
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
    assert "linalg.conv_2d_nhwc_hwcf " in text
    assert "linalg.fill_rng_2d " in text

    def extra() -> list[CoverageRow]:
        return [CoverageRow("test.op", "yes", "-", "-", "-", "-")]

    register(extra)
    try:
        assert "test.op" in format_coverage()
    finally:
        coverage._SOURCES.remove(extra)


def test_hand_written_op_tests_parametrize_over_the_library_lists() -> None:
    hw = "xlinalg.coverage.linalg_handwritten_cases"
    assert (
        parametrized_over("test_linalg_map_reduce.py", "test_verifier_messages")
        == f"{hw}.MAP_REDUCE_VERIFY_CASES"
    )
    assert (
        parametrized_over("test_linalg_map_reduce.py", "test_dtypes") == f"{hw}.MAP_REDUCE_DTYPES"
    )
    assert (
        parametrized_over("test_linalg_softmax.py", "test_verifier") == f"{hw}.SOFTMAX_VERIFY_CASES"
    )
    assert (
        parametrized_over("test_linalg_pack.py", "test_verifier_rules") == f"{hw}.PACK_VERIFY_CASES"
    )
    assert (
        parametrized_over("test_linalg_winograd.py", "test_verifier")
        == f"{hw}.WINOGRAD_VERIFY_CASES"
    )
    assert (
        parametrized_over("test_linalg_generic.py", "test_verifier_messages")
        == f"{hw}.GENERIC_VERIFY_CASES"
    )
    for cases in (handwritten.RUN_CASES, handwritten.TILED_CASES, handwritten.GENERALIZE_CASES):
        for key in cases:  # keyed tests exist
            file, test = key.split("::")
            assert test in functions_of(file), key
    rows = {r.op: r for r in coverage_rows()}
    unpack_rules = sum(1 for text, _ in handwritten.PACK_VERIFY_CASES if "linalg.unpack" in text)
    assert (
        rows["linalg.pack"].verify == f"{len(handwritten.PACK_VERIFY_CASES) - unpack_rules} rules"
    )
    assert rows["linalg.unpack"].verify == f"{unpack_rules} rules"
    assert rows["linalg.map"].run.split(",") == ["f16", "bf16", "f32", "f64", "i8", "i16", "i64"]
    assert rows["linalg.reduce"].tiled == "f64,i32"


def test_linalg_ext_tests_parametrize_over_the_library_lists() -> None:
    cases = "xlinalg.coverage.linalg_ext_cases"
    exec_file, layout = "test_linalg_ext_exec.py", "test_linalg_ext_layout.py"
    assert (
        module_name("test_linalg_ext_ops.py", "CASES")
        == "xlinalg.coverage.linalg_ext_samples.SAMPLES"
    )
    assert (
        parametrized_over("test_linalg_ext_ops.py", "test_verifier_messages")
        == f"{cases}.VERIFY_CASES"
    )
    assert parametrized_over(exec_file, "test_sort_multi_operand_stable") == f"{cases}.SORT_TILES"
    assert parametrized_over(exec_file, "test_scan_vs_cumsum") == f"{cases}.SCAN_CASES"
    assert parametrized_over(exec_file, "test_topk_ties_keep_first") == f"{cases}.TOPK_CASES"
    assert (
        parametrized_over(exec_file, "test_scatter_duplicate_indices_accumulate")
        == f"{cases}.SCATTER_TILES"
    )
    assert (
        parametrized_over(exec_file, "test_scatter_index_depth_two_with_dimension_map")
        == f"{cases}.SCATTER_DEPTH_TWO_TILES"
    )
    assert parametrized_over(exec_file, "test_reverse_vs_flip") == f"{cases}.REVERSE_TILES"
    assert parametrized_over(exec_file, "test_fft_stages_vs_numpy_fft") == f"{cases}.FFT_CASES"
    assert (
        parametrized_over("test_linalg_ext_attention.py", "test_attention_vs_softmax")
        == f"{cases}.ATTENTION_CASES"
    )
    assert (
        parametrized_over(layout, "test_winograd_transforms_compute_a_convolution")
        == f"{cases}.WINOGRAD_CASES"
    )
    assert parametrized_over(layout, "test_tiled_padded_pack") == f"{cases}.PACK_TILES"
    assert parametrized_over(layout, "test_tiled_unpack_drops_padding") == f"{cases}.UNPACK_TILES"
    rows = {r.op: r for r in coverage_rows()}
    assert parametrized_over("test_linalg_ext_dtypes.py", "test_dtype") == f"{cases}.DTYPE_CASES"
    assert (
        parametrized_over(
            "test_tiling_interface_ext_tensors.py", "test_tensor_tiling_matches_numpy"
        )
        == f"{cases}.TENSOR_TILED_CASES"
    )
    assert rows["iree_linalg_ext.sort"].parse == "yes+iree"
    assert rows["iree_linalg_ext.sort"].tiled == "f16,f32,f64,i32"
    assert rows["iree_linalg_ext.attention"].parse == "yes+iree"  # printed in IREE 3.13's syntax
    assert rows["iree_linalg_ext.set_encoding"].run == "f16,f32,f64,i32"  # materialized by compile
    assert rows["iree_linalg_ext.set_encoding"].tiled == "f32,f64 (materialized)"
    assert rows["iree_linalg_ext.unset_encoding"].tiled == "f32,f64 (materialized)"
    assert rows["iree_linalg_ext.upper_bound_tile_size"].tiled == "n/a (folds)"
    assert rows["iree_linalg_ext.scatter"].verify == "9 rules"
