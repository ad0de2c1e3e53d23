/* sframe-conform's find program for bug reports (libsframe's public API of every release,
   2.40 on).  Look PCs up in a raw SFrame section with sframe_decode and sframe_find_fre,
   and print the start of the FRE found.
   Usage: find SECTION PC...  (PCs as sframe_find_fre takes them; decimal or 0x-hex).  */
#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <sframe-api.h>

int
main (int argc, char **argv)
{
  static char buf[1 << 20];
  if (argc < 3)
    {
      fprintf (stderr, "usage: %s SECTION PC...\n", argv[0]);
      return 2;
    }
  FILE *f = fopen (argv[1], "rb");
  if (!f)
    {
      perror (argv[1]);
      return 2;
    }
  size_t n = fread (buf, 1, sizeof buf, f);
  fclose (f);
  int err = 0;
  sframe_decoder_ctx *ctx = sframe_decode (buf, n, &err);
  if (!ctx)
    {
      printf ("sframe_decode: %s\n", sframe_errmsg (err));
      return 1;
    }
  for (int i = 2; i < argc; i++)
    {
      long long pc = strtoll (argv[i], NULL, 0);
      sframe_frame_row_entry fre;
      printf ("pc %lld: ", pc);
      fflush (stdout);
      if (sframe_find_fre (ctx, pc, &fre) != 0)
	printf ("no FRE\n");
      else
	printf ("FRE at %#x\n", (unsigned) fre.fre_start_addr);
    }
  sframe_decoder_free (&ctx);
  return 0;
}
