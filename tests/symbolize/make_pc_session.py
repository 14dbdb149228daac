#!/usr/bin/env python3
"""Manual benchmark helper (not a CTest test): writes a session whose native frames are N distinct
PCs of THIS Python process — after importing the modules named on the command line (torch, by
default) and touching CUDA when it is there — so `stallscope-symbolize` can be timed on the
libraries of a real PyTorch process (libtorch_cpu/libtorch_cuda/libcudart/libcuda, ...).

usage: make_pc_session.py OUT.stallscope [N=10000] [--mode random|exported] [module ...]

  random:   PCs uniformly inside the executable segments, weighted by their size (the worst case:
            many fall into non-exported code that only .symtab/DWARF could name)
  exported: PCs a few bytes inside functions of the libraries' .dynsym (closer to real return
            addresses, which sit in PyTorch's exported C++ API)

The schema comes from format/session_schema.h, so the file is what the recorder writes.
"""
import ctypes
import ctypes.util
import os
import random
import re
import sqlite3
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMA_H = os.path.join(HERE, "..", "..", "format", "session_schema.h")


class DlPhdrInfo(ctypes.Structure):
    _fields_ = [("dlpi_addr", ctypes.c_uint64), ("dlpi_name", ctypes.c_char_p),
                ("dlpi_phdr", ctypes.c_void_p), ("dlpi_phnum", ctypes.c_uint16)]


PT_LOAD, PT_NOTE, PF_X = 1, 4, 1


def loaded_modules():
    libc = ctypes.CDLL(None)
    callback_type = ctypes.CFUNCTYPE(ctypes.c_int, ctypes.POINTER(DlPhdrInfo), ctypes.c_size_t,
                                     ctypes.c_void_p)
    modules = []

    def visit(info_ptr, _size, _data):
        info = info_ptr.contents
        name = info.dlpi_name.decode() if info.dlpi_name else ""
        if not name:
            name = os.readlink("/proc/self/exe") if not modules else ""
        segments, build_id = [], ""
        for i in range(info.dlpi_phnum):
            raw = ctypes.string_at(info.dlpi_phdr + i * 56, 56)
            p_type, p_flags, _off, p_vaddr, _pa, _fsz, p_memsz, _al = struct.unpack("<IIQQQQQQ", raw)
            if p_type == PT_LOAD:
                segments.append((info.dlpi_addr + p_vaddr, p_memsz, bool(p_flags & PF_X)))
            if p_type == PT_NOTE and not build_id:
                notes = ctypes.string_at(info.dlpi_addr + p_vaddr, p_memsz)
                at = 0
                while at + 12 <= len(notes):
                    namesz, descsz, ntype = struct.unpack_from("<III", notes, at)
                    name_at = at + 12
                    desc_at = name_at + ((namesz + 3) & ~3)
                    if ntype == 3 and notes[name_at:name_at + 4] == b"GNU\0":
                        build_id = notes[desc_at:desc_at + descsz].hex()
                        break
                    at = desc_at + ((descsz + 3) & ~3)
        if name and segments:
            modules.append(dict(path=name, bias=info.dlpi_addr, segments=segments,
                                build_id=build_id))
        return 0

    libc.dl_iterate_phdr(callback_type(visit), None)
    return modules


def dynsym_functions(path):
    """(value, size) of defined FUNC symbols in .dynsym, parsed from the section headers."""
    out = []
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != b"\x7fELF" or data[4] != 2:
        return out
    shoff, = struct.unpack_from("<Q", data, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", data, 0x3A)
    for i in range(shnum):
        sh = struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize)
        if sh[1] == 11:  # SHT_DYNSYM
            offset, size, entsize = sh[4], sh[5], sh[9] or 24
            for at in range(offset, offset + size, entsize):
                _name, info, _other, shndx, value, sym_size = struct.unpack_from("<IBBHQQ", data, at)
                if (info & 0xF) == 2 and shndx != 0 and value and sym_size > 8:
                    out.append((value, sym_size))
    return out


def main():
    args = [a for a in sys.argv[1:]]
    mode = "random"
    if "--mode" in args:
        i = args.index("--mode")
        mode = args[i + 1]
        del args[i:i + 2]
    out = args[0]
    count = int(args[1]) if len(args) > 1 else 10000
    for name in args[2:] or ["torch"]:
        __import__(name)
    try:
        import torch
        if torch.cuda.is_available():
            x = torch.randn(256, 256, device="cuda")
            (x @ x).sum().item()
    except ImportError:
        pass

    modules = loaded_modules()
    schema = open(SCHEMA_H).read().split('kSchemaSql = R"SQL(')[1].split(')SQL"')[0]
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    db.executescript(schema)
    db.executemany("INSERT INTO meta(key, value) VALUES (?, ?)",
                   [("format_name", "stallscope-session"), ("format_version", "1"),
                    ("status", "complete"), ("clock", "CLOCK_MONOTONIC")])
    db.execute("INSERT INTO processes(id, pid, host, command, start_ns) VALUES (1, ?, 'bench', ?, 0)",
               (os.getpid(), " ".join(sys.argv)))
    rng = random.Random(42)
    candidates = []  # (weight, module row id, lo, hi) ranges to draw PCs from
    for m in modules:
        lo = min(s[0] for s in m["segments"])
        hi = max(s[0] + s[1] for s in m["segments"])
        cur = db.execute("INSERT INTO modules(process_id, path, load_bias, start_address, end_address,"
                         " build_id, loaded_ns) VALUES (1, ?, ?, ?, ?, ?, 0)",
                         (m["path"], m["bias"], lo, hi, m["build_id"]))
        if mode == "exported":
            if os.path.isfile(m["path"]):
                for value, size in dynsym_functions(m["path"]):
                    candidates.append((1, cur.lastrowid, m["bias"] + value + 5,
                                       m["bias"] + value + size))
        else:
            for start, size, executable in m["segments"]:
                if executable and size > 4096:
                    candidates.append((size, cur.lastrowid, start + 1, start + size))
    weights = [c[0] for c in candidates]
    seen = set()
    while len(seen) < count:
        _w, module_id, lo, hi = rng.choices(candidates, weights)[0]
        pc = rng.randrange(lo, hi)
        if pc in seen:
            continue
        seen.add(pc)
        db.execute("INSERT INTO frames(kind, address, module_id, symbolized) VALUES (1, ?, ?, 0)",
                   (pc, module_id))
    db.commit()
    db.close()
    biggest = sorted(modules, key=lambda m: -sum(s[1] for s in m["segments"] if s[2]))[:6]
    print(f"wrote {out}: {count} distinct PCs ({mode}) over {len(modules)} modules; largest code:")
    for m in biggest:
        print(f"  {sum(s[1] for s in m['segments'] if s[2]) / 2**20:8.1f} MiB  {m['path']}")


if __name__ == "__main__":
    main()
