# Run by tst_recorder_python inside an embedded interpreter. The test finds the expected lines by
# the MARK comments, so edits here need no line numbers in the test.
import stallprobe


def inner_gil():
    stallprobe.capture("gil")  # MARK:gil


def inner_nogil():
    stallprobe.capture_nogil("nogil")  # MARK:nogil


def outer():
    inner_gil()  # MARK:outer_gil
    inner_nogil()  # MARK:outer_nogil


def numbers():
    for i in range(2):
        stallprobe.capture_nogil("gen%d" % i)  # MARK:gen
        yield i


def key(value):
    stallprobe.sync(7)  # MARK:sync
    return value


def through_c():
    # sorted() is C calling back into Python: a second eval-loop activation on the native stack
    return sorted([2], key=key)  # MARK:through_c


outer()  # MARK:module_outer
for value in numbers():  # MARK:module_gen
    pass
through_c()  # MARK:module_through_c
