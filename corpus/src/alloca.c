/* Dynamic stack allocation: alloca and variable-length arrays.  */
#include "common.h"

int use_alloca(int n)
{
  char *p = __builtin_alloca(n);
  ext_use(p);
  return p[0];
}

int use_vla(int n)
{
  int a[n];
  for (int i = 0; i < n; i++)
    a[i] = i;
  ext_use(a);
  return a[n / 2];
}

long vla_2d(int n, int m)
{
  long a[n][m];
  ext_use(a);
  return a[n - 1][m - 1] + ext_sum(n, m);
}

int alloca_in_loop(int n)
{
  int s = 0;
  for (int i = 0; i < n; i++) {
    char *p = __builtin_alloca(16 + i);
    ext_use(p);
    s += p[1];
  }
  return s;
}
