#ifndef CCLASSIFY_PARALLEL_H
#define CCLASSIFY_PARALLEL_H
// Internal: how kernels split their work across the threads set with cls_threads_configure.
//
// A kernel cuts its work into `tasks` independent pieces and calls cls_parallel_run; the calling
// thread and the workers claim pieces one at a time until none are left, and the call returns
// when every piece has run. With one thread configured (or when another run holds the workers)
// the pieces simply run in order on the caller.

typedef void (*cls_task_fn)(void *context, int task);

/// Threads a kernel may plan for (1 = caller only).
///
/// Kernels of the network cut a map into one band of rows per thread. The caller claims the
/// first task and the worker, woken at once, the next, so from op to op each core keeps working on
/// the same rows: what it reads is mostly what it wrote, in its own cache. A few smaller tasks per
/// thread, claimed in whatever order, moved half of every map between the cores' caches: on 2
/// cores (Xeon family 6 model 207) the network at two threads took 4% longer that way (int8 2.75
/// against 2.66 ms, fp32 4.17 against 3.98, medians of five alternating runs of `classify-tool
/// bench --threads 2`).
int cls_parallel_thread_count(void);
/// Runs fn(context, t) for t in [0, tasks) and returns when all have finished.
void cls_parallel_run(cls_task_fn fn, void *context, int tasks);

#endif
