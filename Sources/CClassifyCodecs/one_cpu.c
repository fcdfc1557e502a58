#define _GNU_SOURCE
#include "cls_one_cpu.h"

#include <pthread.h>
#include <sched.h>

void cls_run_on_one_cpu(void (*body)(void *context), void *context) {
    cpu_set_t saved;
    const int cpu = sched_getcpu();
    int narrowed = 0;
    if (cpu >= 0 && cpu < CPU_SETSIZE && pthread_getaffinity_np(pthread_self(), sizeof saved, &saved) == 0) {
        cpu_set_t one;
        CPU_ZERO(&one);
        CPU_SET(cpu, &one);
        narrowed = pthread_setaffinity_np(pthread_self(), sizeof one, &one) == 0;
    }
    body(context);
    if (narrowed) pthread_setaffinity_np(pthread_self(), sizeof saved, &saved);
}

int cls_allowed_cpu_count(void) {
    cpu_set_t set;
    return pthread_getaffinity_np(pthread_self(), sizeof set, &set) == 0 ? CPU_COUNT(&set) : 0;
}
