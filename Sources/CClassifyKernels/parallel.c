#include "CClassifyKernels.h"
#include "parallel.h"

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#if defined(__x86_64__) || defined(__i386__)
#include <xmmintrin.h>
#define CLS_PAUSE() _mm_pause()
#else
#define CLS_PAUSE() ((void)0)
#endif

// A tiny persistent pool for ~60 short parallel regions per inference, where waking a sleeping
// thread (tens of microseconds) would cost more than the work. Workers spin on the job word for
// a while after each job and only then sleep on a condition variable; with one thread configured
// no worker exists at all, so task-level parallelism (one inference per core) never competes
// with spinning threads.
//
// One 64-bit word publishes a job and hands out its tasks:
//   bits 63..32 generation (bumped per job), 31..16 task count, 15..0 next unclaimed task.
// A thread claims a task by compare-and-swap on the whole word, so a thread that wakes up late
// can never claim a task of a newer job with stale function/context values: any new job changes
// the generation and the CAS fails. The caller waits only for tasks that were claimed (the done
// counter), never for a worker that has not shown up.

enum { MAX_THREADS = 64, SPIN_ROUNDS = 1 << 15 };

static pthread_mutex_t run_lock = PTHREAD_MUTEX_INITIALIZER;  // one job at a time; configure
static pthread_mutex_t sleep_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sleep_cond = PTHREAD_COND_INITIALIZER;

static _Atomic int configured_threads = 1;
// Set while this thread runs a task: a kernel called from inside a task (a fused op running
// smaller kernels per band) then plans for one thread instead of splitting work again.
static _Thread_local int inside_task = 0;
static int worker_count = 0;
static pthread_t workers[MAX_THREADS];

static _Atomic uint64_t job_word = 0;
static _Atomic(cls_task_fn) job_fn = 0;
static _Atomic(void *) job_context = 0;
static _Atomic int job_done = 0;
static _Atomic int job_level = 0;  // the kernel level of the thread that published the job
static _Atomic int sleepers = 0;
static _Atomic int quit = 0;

#define WORD_GENERATION(w) ((uint32_t)((w) >> 32))
#define WORD_TASKS(w) ((int)(((w) >> 16) & 0xFFFF))
#define WORD_NEXT(w) ((int)((w) & 0xFFFF))

unsigned cls_flush_denormals_begin(void) {
#if defined(__x86_64__) || defined(__i386__)
    unsigned saved = _mm_getcsr();
    _mm_setcsr(saved | 0x8040u);  // FTZ (bit 15) and DAZ (bit 6)
    return saved;
#else
    return 0;
#endif
}

void cls_flush_denormals_end(unsigned saved) {
#if defined(__x86_64__) || defined(__i386__)
    _mm_setcsr(saved);
#else
    (void)saved;
#endif
}

// Claims and runs tasks of the job published in `word` until none are left or a new job appears.
static void work_on(uint64_t word) {
    const uint32_t generation = WORD_GENERATION(word);
    cls_task_fn fn = atomic_load_explicit(&job_fn, memory_order_relaxed);
    void *context = atomic_load_explicit(&job_context, memory_order_relaxed);
    const int level = atomic_load_explicit(&job_level, memory_order_relaxed);
    for (;;) {
        if (WORD_GENERATION(word) != generation || WORD_NEXT(word) >= WORD_TASKS(word)) return;
        // On failure the CAS reloads `word`; the loop then re-checks generation and tasks left.
        if (atomic_compare_exchange_weak_explicit(&job_word, &word, word + 1, memory_order_acquire,
                                                  memory_order_acquire)) {
            inside_task = 1;
            const int outer_level = cls_kernels_set_thread_level(level);
            fn(context, WORD_NEXT(word));
            cls_kernels_set_thread_level(outer_level);
            inside_task = 0;
            atomic_fetch_add_explicit(&job_done, 1, memory_order_release);
            word += 1;
        }
    }
}

static void *worker_main(void *unused) {
    (void)unused;
    cls_flush_denormals_begin();
    uint32_t seen = WORD_GENERATION(atomic_load(&job_word));
    for (;;) {
        uint64_t word;
        int spins = 0;
        while (WORD_GENERATION(word = atomic_load_explicit(&job_word, memory_order_acquire)) == seen) {
            if (atomic_load_explicit(&quit, memory_order_relaxed)) return 0;
            if (++spins < SPIN_ROUNDS) { CLS_PAUSE(); continue; }
            pthread_mutex_lock(&sleep_lock);
            atomic_fetch_add(&sleepers, 1);
            while (WORD_GENERATION(atomic_load(&job_word)) == seen && !atomic_load(&quit))
                pthread_cond_wait(&sleep_cond, &sleep_lock);
            atomic_fetch_sub(&sleepers, 1);
            pthread_mutex_unlock(&sleep_lock);
            spins = 0;
        }
        if (atomic_load(&quit)) return 0;
        seen = WORD_GENERATION(word);
        work_on(word);
    }
}

static void wake_sleepers(void) {
    if (atomic_load(&sleepers) > 0) {
        pthread_mutex_lock(&sleep_lock);
        pthread_cond_broadcast(&sleep_cond);
        pthread_mutex_unlock(&sleep_lock);
    }
}

static void stop_workers(void) {
    if (worker_count == 0) return;
    atomic_store(&quit, 1);
    pthread_mutex_lock(&sleep_lock);
    pthread_cond_broadcast(&sleep_cond);
    pthread_mutex_unlock(&sleep_lock);
    for (int i = 0; i < worker_count; i++) pthread_join(workers[i], 0);
    worker_count = 0;
    atomic_store(&quit, 0);
}

void cls_threads_configure(int count) {
    if (count < 1) count = 1;
    if (count > MAX_THREADS) count = MAX_THREADS;
    pthread_mutex_lock(&run_lock);
    if (count != atomic_load(&configured_threads) || worker_count != count - 1) {
        stop_workers();
        for (int i = 0; i < count - 1; i++) {
            if (pthread_create(&workers[worker_count], 0, worker_main, 0) != 0) break;
            worker_count++;
        }
        atomic_store(&configured_threads, worker_count + 1);
    }
    pthread_mutex_unlock(&run_lock);
}

int cls_threads_count(void) { return atomic_load_explicit(&configured_threads, memory_order_relaxed); }

int cls_parallel_thread_count(void) { return inside_task ? 1 : cls_threads_count(); }

static void run_serially(cls_task_fn fn, void *context, int tasks) {
    int outer = inside_task;
    inside_task = 1;
    for (int t = 0; t < tasks; t++) fn(context, t);
    inside_task = outer;
}

void cls_parallel_run(cls_task_fn fn, void *context, int tasks) {
    if (tasks <= 0) return;
    // Serial when there is nothing to share, or when another inference (or an enclosing parallel
    // region) holds the workers: never block behind it.
    if (tasks == 1 || inside_task || cls_threads_count() == 1 || tasks > 0xFFFF || pthread_mutex_trylock(&run_lock) != 0) {
        run_serially(fn, context, tasks);
        return;
    }
    if (worker_count == 0) {
        pthread_mutex_unlock(&run_lock);
        run_serially(fn, context, tasks);
        return;
    }
    uint64_t old = atomic_load(&job_word);
    uint64_t word = ((uint64_t)(WORD_GENERATION(old) + 1) << 32) | ((uint64_t)tasks << 16);
    atomic_store_explicit(&job_fn, fn, memory_order_relaxed);
    atomic_store_explicit(&job_context, context, memory_order_relaxed);
    atomic_store_explicit(&job_done, 0, memory_order_relaxed);
    atomic_store_explicit(&job_level, cls_kernels_level(), memory_order_relaxed);
    atomic_store(&job_word, word);  // seq_cst: pairs with the sleepers check below
    wake_sleepers();
    work_on(word);
    int spins = 0;
    while (atomic_load_explicit(&job_done, memory_order_acquire) < tasks) {
        if (++spins < 4096) CLS_PAUSE();
        else sched_yield();  // a worker holding a task was descheduled
    }
    pthread_mutex_unlock(&run_lock);
}
