"""The undefined symbols of an ELF64 little-endian object file (what the JIT must link)."""

from __future__ import annotations

import struct

_SHT_SYMTAB = 2
_SHN_UNDEF = 0
_ELF_MAGIC = b"\x7fELF"
_ELFCLASS64 = 2
_ELFDATA2LSB = 1


def undefined_symbols(obj: bytes) -> list[str] | None:
    """Names of the undefined symbols of `obj`, or None if it is not an ELF64 LE object."""
    if len(obj) < 64 or obj[:4] != _ELF_MAGIC or obj[4] != _ELFCLASS64 or obj[5] != _ELFDATA2LSB:
        return None
    (shoff,) = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    names: list[str] = []
    for _name, sh_type, _flags, _addr, offset, size, link, _info, _align, entsize in sections:
        if sh_type != _SHT_SYMTAB or entsize == 0:
            continue
        str_offset, str_size = sections[link][4], sections[link][5]
        strtab = obj[str_offset : str_offset + str_size]
        for k in range(1, size // entsize):  # entry 0 is the null symbol
            st_name, _st_info, _st_other, st_shndx, _value, _size = struct.unpack_from(
                "<IBBHQQ", obj, offset + k * entsize
            )
            if st_shndx == _SHN_UNDEF and st_name:
                end = strtab.index(b"\0", st_name)
                names.append(strtab[st_name:end].decode())
    return names
