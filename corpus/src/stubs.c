/* Definitions of the ext_* functions and the entry point called by _start, for the
   executables (shared objects leave ext_* undefined, so they call them through the PLT).  */
#include "common.h"

volatile int ext_v[8];
static char scratch[64];

int ext_sink(int x) { return x ^ ext_v[0]; }
long ext_sum(long a, long b) { return a + b; }
void ext_use(void *p) { (void) p; ext_v[1]++; }
double ext_double(double d) { return d * 0.5; }
void ext_abort(void) { for (;;) ext_v[2]++; }

int corpus_main(void *sp)
{
  (void) sp;
  ext_use(scratch);
  return ext_sink(3) & 0x7f;
}
