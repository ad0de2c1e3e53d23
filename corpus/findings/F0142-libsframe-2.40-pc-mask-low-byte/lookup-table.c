/* F0142: every PC of the two functions of input-pcmask-low-byte.sframe through a libsframe's
   sframe_find_fre (2.40 and 2.44 take an int32_t PC): the FRE start and CFA offset it returns. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
int main (int argc, char **argv)
{
  if (argc < 3) { fprintf (stderr, "usage: lookup-table LIBSFRAME SECTION\n"); return 2; }
  void *h = dlopen (argv[1], RTLD_NOW);
  if (!h) { fprintf (stderr, "%s\n", dlerror ()); return 2; }
  FILE *f = fopen (argv[2], "rb");
  if (!f) { perror (argv[2]); return 2; } static char buf[4096]; size_t n = fread (buf, 1, sizeof buf, f);
  void *(*decode) (const char *, size_t, int *) = dlsym (h, "sframe_decode");
  int (*find_fre) (void *, int32_t, void *) = dlsym (h, "sframe_find_fre");
  int err = 0; void *ctx = decode (buf, n, &err);
  if (!ctx) { fprintf (stderr, "sframe_decode: error %d\n", err); return 1; }
  for (int32_t pc = 0x100; pc < 0x220; pc++) {
    if (pc == 0x120) pc = 0x1f8;
    unsigned char fre[64]; memset (fre, 0, sizeof fre);
    int r = find_fre (ctx, pc, fre);
    uint32_t start; memcpy (&start, fre, 4);
    if (r == 0) printf ("pc %#x: FRE start %u, CFA offset %d\n", pc, start, (int8_t) fre[4]);
    else printf ("pc %#x: no row (%d)\n", pc, r);
  }
}
