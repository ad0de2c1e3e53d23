/* Leaf and non-leaf functions, recursion, callee-saved registers, several epilogues.  */
#include "common.h"

int leaf_add(int a, int b) { return a + b; }

long leaf_loop(const int *p, int n)
{
  long s = 0;
  for (int i = 0; i < n; i++)
    s += p[i] * (long) i;
  return s;
}

int nonleaf_call(int x) { return ext_sink(x) + 1; }

int nonleaf_saves(int a, int b, int c)
{
  int x = ext_sink(a);
  int y = ext_sink(b + x);
  return ext_sink(c + y) + x * y;
}

unsigned long fib(unsigned n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }

static NOINLINE int static_helper(int x) { return ext_sink(x * 3); }

int calls_static(int x) { return static_helper(x) + static_helper(x + 1); }

int early_return(int x)
{
  if (x < 0)
    return -1;
  int r = ext_sink(x);
  if (r)
    return r + ext_sink(r);
  return ext_sink(-x);
}

double float_work(double a, double b)
{
  double c = ext_double(a * b);
  return c + ext_double(a - c) * b;
}
