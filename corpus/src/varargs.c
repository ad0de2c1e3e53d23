/* Variadic functions, many (stack-passed) arguments, structures passed and returned by
   value.  */
#include <stdarg.h>
#include "common.h"

long sum_varargs(int n, ...)
{
  va_list ap;
  long s = 0;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    s += va_arg(ap, long);
  va_end(ap);
  return s;
}

double mixed_varargs(int n, ...)
{
  va_list ap;
  double s = 0;
  va_start(ap, n);
  for (int i = 0; i < n; i++)
    s += (i & 1) ? va_arg(ap, double) : (double) va_arg(ap, int);
  va_end(ap);
  return s;
}

long many_args(long a, long b, long c, long d, long e, long f, long g, long h, long i, long j,
               long k, long l)
{
  return ext_sum(a + c + e + g + i + k, b * d * f * h * j * l);
}

struct big { long v[16]; };

struct big make_big(long x)
{
  struct big b;
  for (int i = 0; i < 16; i++)
    b.v[i] = x + i;
  ext_use(&b);
  return b;
}

long take_big(struct big b) { return b.v[0] + b.v[15] + ext_sink((int) b.v[3]); }

long call_many(long x)
{
  struct big b = make_big(x);
  return many_args(x, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11) + sum_varargs(3, x, x, x)
         + (long) mixed_varargs(2, 1, 2.0) + take_big(b);
}
