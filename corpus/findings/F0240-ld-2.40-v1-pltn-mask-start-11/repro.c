/* A shared object with a lazy PLT entry: link with GNU ld 2.40, objects assembled with
   `as --gsframe` (SFrame v1). */
extern void f(void);
void call(void) { f(); }
