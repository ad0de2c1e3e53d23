/* Stack realignment: over-aligned locals (realignment with a frame pointer) and, with dynamic
   allocation or stack-passed arguments as well, the dynamic realign argument pointer (DRAP)
   on x86-64, whose CFI uses a register other than SP/FP and DWARF expressions.  */
#include "common.h"

int over_aligned(int x)
{
  int a[16] __attribute__((aligned(64)));
  ext_use(a);
  return a[x & 15];
}

int aligned_alloca(int n)
{
  int a[4] __attribute__((aligned(64)));
  char *p = __builtin_alloca(n);
  ext_use(a);
  ext_use(p);
  return a[1] + p[0];
}

int aligned_stack_args(int a, int b, int c, int d, int e, int f, int g, int h, int i, int j)
{
  int buf[8] __attribute__((aligned(32)));
  ext_use(buf);
  return buf[a & 7] + b + c + d + e + f + g + h + i + j;
}

#if defined(__x86_64__) || defined(__i386__)
__attribute__((force_align_arg_pointer)) int force_realign(int x)
{
  double d[4] __attribute__((aligned(32)));
  ext_use(d);
  return x + (int) d[x & 3];
}
#endif
