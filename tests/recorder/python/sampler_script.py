# Run by tst_python_sampler inside an embedded interpreter. The test finds the expected lines by
# the MARK comments, so edits here need no line numbers in the test.
import threading

import stallprobe


def parked_a():
    stallprobe.park()  # MARK:park_a


def helper():
    stallprobe.park()  # MARK:park_b


def parked_b():
    helper()  # MARK:call_helper


# Two threads parked at known lines (GIL released), sampled once from the main thread.
workers = [threading.Thread(target=parked_a, name="worker-a"),
           threading.Thread(target=parked_b, name="worker-b")]
for worker in workers:
    worker.start()
stallprobe.sample_parked(len(workers))  # MARK:sample_parked
for worker in workers:
    worker.join()


# Thread states and code objects made and freed while a sampling thread reads them: threads
# start and end, each compiling and running a function of its own, the main thread holds the GIL.
def short_lived(index):
    namespace = {}
    exec(compile("def f(x):\n    return [x * k for k in range(50)]\n", "<churn-%d>" % index,
                 "exec"), namespace)
    return namespace["f"](index)


stallprobe.sampler_start(5000)
index = 0
while stallprobe.sampler_ticks() < 300:
    batch = [threading.Thread(target=short_lived, args=(index + k,)) for k in range(8)]
    for thread in batch:
        thread.start()
    for thread in batch:
        thread.join()
    index += len(batch)
stallprobe.sampler_stop()

# The sampler's line-table decoder against CPython's own lookup, on code of every shape here.
for code in (parked_a.__code__, helper.__code__, parked_b.__code__, short_lived.__code__,
             threading.Thread.run.__code__, threading.Thread._bootstrap_inner.__code__,
             threading.Condition.wait.__code__, compile(open(__file__).read(), __file__, "exec")):
    stallprobe.check_line_table(code)
