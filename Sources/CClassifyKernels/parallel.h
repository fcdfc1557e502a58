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
int cls_parallel_thread_count(void);
/// Runs fn(context, t) for t in [0, tasks) and returns when all have finished.
void cls_parallel_run(cls_task_fn fn, void *context, int tasks);

#endif
