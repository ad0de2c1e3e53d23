/* F0145: calls Debian's libsframe (dlopen'ed) on one section: sframe_decode, then for function 0
   either sframe_decoder_get_fre (fre 0) or sframe_find_fre (pc).  Only for measuring where
   sframe_decode_fre's destination lies relative to its caller's saved registers. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
int main (int argc, char **argv)
{
  void *h = dlopen (argv[1], RTLD_NOW);
  if (!h) { fprintf (stderr, "%s\n", dlerror ()); return 2; }
  if (argc < 3) { fprintf (stderr, "usage: frame-layout LIBSFRAME SECTION [PC]\n"); return 2; }
  FILE *f = fopen (argv[2], "rb");
  if (!f) { perror (argv[2]); return 2; } static char buf[1 << 16]; size_t n = fread (buf, 1, sizeof buf, f);
  void *(*decode) (const char *, size_t, int *) = dlsym (h, "sframe_decode");
  int (*get_fre) (void *, unsigned, unsigned, void *) = dlsym (h, "sframe_decoder_get_fre");
  int (*find_fre) (void *, int64_t, void *) = dlsym (h, "sframe_find_fre");
  int err = 0; void *ctx = decode (buf, n, &err);
  printf ("decode: %p err %d\n", ctx, err); fflush (stdout);
  if (!ctx) return 1;
  unsigned char fre[256]; memset (fre, 0, sizeof fre);
  int r;
  if (argc > 3) r = find_fre (ctx, strtoll (argv[3], 0, 0), fre);
  else r = get_fre (ctx, 0, 0, fre);
  printf ("result %d\n", r);
  return 0;
}
