/* Stack realignment with alloca: GCC uses a DRAP register (%r10) and describes %rbp with
   DW_CFA_expression *(%rbp). In the epilogue it pops %rbp but keeps that rule, so for the
   last two instructions the CFI (and SFrame v3 flex rows) say FP = *(FP + 0). */
void ext_use(void *);
int aligned_alloca(int n)
{
  int a[4] __attribute__((aligned(64)));
  char *p = __builtin_alloca(n);
  ext_use(a);
  ext_use(p);
  return a[1] + p[0];
}
