/* Shared declarations for the corpus sources.  The sources are freestanding: they include
   only compiler headers, so every (cross) compiler builds them the same way.  The ext_*
   functions are defined in stubs.c for executables and left undefined in shared objects,
   where calls to them go through the PLT.  */
#ifndef CORPUS_COMMON_H
#define CORPUS_COMMON_H

#define NOINLINE __attribute__((noinline))

extern int ext_sink(int);
extern long ext_sum(long, long);
extern void ext_use(void *);
extern double ext_double(double);
extern void ext_abort(void) __attribute__((noreturn));
extern volatile int ext_v[8];

#endif
