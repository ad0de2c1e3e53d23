/* A function that never returns, compiled with frame pointers: GCC sets up %r11 as the
   frame pointer without saving the caller's %r11 (it never returns), yet its CFI says
   nothing about %r11, so SFrame says "FP unchanged". */
extern int v[4];
void spin(void) { for (;;) v[2]++; }
