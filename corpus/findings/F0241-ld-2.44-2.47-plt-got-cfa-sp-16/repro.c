/* A shared object with a .plt.got entry (f is both called and taken by address): link with
   GNU ld 2.44 or 2.47, objects assembled with `as --gsframe`. */
extern void f(void);
void *addr(void) { return (void *)f; }
void call(void) { f(); }
