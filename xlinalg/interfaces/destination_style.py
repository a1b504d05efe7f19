"""`DestinationStyleOpInterface`: a non-structured op in destination-passing style.

For ops such as `linalg.pack`, `linalg.softmax` or the winograd transforms,
which are not linalg structured ops but, like them, read some operands and
write their "init" operands (on tensors: one result per tensor init, the new
value of that init). One-shot bufferization uses it to give these ops buffers:
each tensor init gets a buffer (its own, or a copy when writing in place would
clobber a value still read), and the op is rebuilt on memrefs.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence

from xdsl.ir import Operation, SSAValue


class DestinationStyleOpInterface(ABC):
    @abstractmethod
    def get_dps_inputs(self) -> Sequence[SSAValue]:
        """The shaped operands the op reads (not its inits)."""

    @abstractmethod
    def get_dps_inits(self) -> Sequence[SSAValue]:
        """The operands the op writes; on tensors, result `i` is the new value of init `i`."""

    def reads_inits(self) -> bool:
        """Whether the op reads the old contents of its inits (e.g. accumulates into them)."""
        return True

    @abstractmethod
    def clone_on_buffers(self, buffers: Mapping[SSAValue, SSAValue]) -> Operation:
        """The same op on memrefs: every operand in `buffers` replaced by its buffer; no results."""
