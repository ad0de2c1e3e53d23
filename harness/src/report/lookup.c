/* sframe-conform's look-up program for bug reports (libsframe's public API of 2.40 and
   later: sframe_fre_get_cfa_offset takes the FDE type from 2.47 on).
   Look PCs up in a raw SFrame section with libsframe's public API (sframe_decode,
   sframe_find_fre) and print the row found: its start and its CFA rule.
   Usage: lookup SECTION PC...  (PCs relative to the start of the section, as
   sframe_find_fre takes them; decimal or 0x-hex, may be negative).  */
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
      int64_t pc = strtoll (argv[i], NULL, 0);
      sframe_frame_row_entry fre;
      if (sframe_find_fre (ctx, pc, &fre) != 0)
	{
	  printf ("pc %lld: no FRE\n", (long long) pc);
	  continue;
	}
      int e = 0;
      uint8_t base = sframe_fre_get_base_reg_id (&fre, &e);
#if SFRAME_VERSION == SFRAME_VERSION_3
      int32_t cfa = sframe_fre_get_cfa_offset (ctx, &fre, SFRAME_FDE_TYPE_DEFAULT, &e);
#else
      int32_t cfa = sframe_fre_get_cfa_offset (ctx, &fre, &e);
#endif
      if (e)
	printf ("pc %lld: FRE at %#x, no CFA offset\n", (long long) pc,
		(unsigned) fre.fre_start_addr);
      else
	printf ("pc %lld: FRE at %#x, CFA = %s%+d\n", (long long) pc,
		(unsigned) fre.fre_start_addr,
		base == SFRAME_BASE_REG_SP ? "sp" : "fp", (int) cfa);
    }
  sframe_decoder_free (&ctx);
  return 0;
}
