// Running a call with the calling thread restricted to the CPU it is on, for libraries that size
// their thread pools (and the memory those pools hold) from the caller's CPU affinity and offer no
// other setting: dav1d behind libheif 1.15 (heif_decoder.c).
//
//   cls_run_on_one_cpu(decode, &call);
//   int cpus = cls_allowed_cpu_count();  // what such a library would see
#ifndef CLS_ONE_CPU_H
#define CLS_ONE_CPU_H

/// Calls `body(context)` with the calling thread's CPU affinity narrowed to its current CPU (threads
/// it starts inherit that), then restores the affinity it had. When the affinity cannot be read
/// or changed, `body` runs as it is.
void cls_run_on_one_cpu(void (*body)(void *context), void *context);

/// How many CPUs the calling thread may run on (its affinity), 0 when that cannot be read: the count
/// dav1d sizes its threads by.
int cls_allowed_cpu_count(void);

#endif
