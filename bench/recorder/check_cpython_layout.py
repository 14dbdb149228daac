#!/usr/bin/env python3
"""Checks, with ctypes, the CPython struct offsets recorder/python_frames.cpp uses for this
interpreter (3.11/3.12): code object fields, compact ASCII data, thread state -> current frame."""
import ctypes
import sys

LAYOUT = {
    (3, 11): dict(filename=112, name=120, firstlineno=72, ascii=48, cframe=56, current=8, f_frame=None),
    (3, 12): dict(filename=112, name=120, firstlineno=68, ascii=40, cframe=56, current=0, f_frame=24, f_code=0, owner=70),
}


def ptr(address):
    return ctypes.c_void_p.from_address(address).value


def main():
    v = sys.version_info[:2]
    lay = LAYOUT.get(v)
    if not lay:
        print("cpython layout: no table for", v)
        return 0
    code = main.__code__
    checks = {
        "co_filename": ptr(id(code) + lay["filename"]) == id(code.co_filename),
        "co_name": ptr(id(code) + lay["name"]) == id(code.co_name),
        "co_firstlineno": ctypes.c_int.from_address(id(code) + lay["firstlineno"]).value == code.co_firstlineno,
        "ascii data": ctypes.string_at(id(code.co_name) + lay["ascii"], len(code.co_name)) == code.co_name.encode(),
    }
    get = ctypes.pythonapi.PyGILState_GetThisThreadState
    get.restype = ctypes.c_void_p
    tstate = get()
    # Read inline: inside a helper function the current frame would be the helper's.
    cframe = ctypes.c_void_p.from_address(tstate + lay["cframe"]).value
    current = ctypes.c_void_p.from_address(cframe + lay["current"]).value
    if lay["f_frame"] is not None:
        iframe = ptr(id(sys._getframe()) + lay["f_frame"])
        checks["tstate->cframe->current_frame"] = current == iframe
        checks["frame f_code"] = ptr(iframe + lay["f_code"]) == id(code)
        checks["frame owner"] = ctypes.c_byte.from_address(iframe + lay["owner"]).value == 0
    print("cpython layout %d.%d:" % v, checks, "OK" if all(checks.values()) else "MISMATCH")
    return 0


if __name__ == "__main__":
    sys.exit(main())
