/* Tail calls (sibling calls at -O2), noreturn callees and unreachable ends.  */
#include "common.h"

int tail_to_ext(int x) { return ext_sink(x + 1); }

long tail_conditional(int x)
{
  if (x > 3)
    return ext_sink(x);
  return ext_sum(x, 2);
}

static NOINLINE int local_target(int x) { return ext_sink(x) * 2; }

int tail_to_local(int x) { return local_target(x ^ 5); }

void calls_noreturn(int x)
{
  if (x)
    ext_abort();
  ext_sink(x);
}

__attribute__((noreturn)) void my_noreturn(int x)
{
  ext_sink(x);
  ext_abort();
}

int ends_unreachable(int x)
{
  switch (x & 3) {
  case 0:
    return ext_sink(1);
  case 1:
    return 7;
  default:
    __builtin_unreachable();
  }
}

void trap_path(int x)
{
  if (x < 0)
    __builtin_trap();
  ext_sink(x);
}
