/* sframe-conform's look-up program for glibc bug reports (glibc 2.43).
   glibc's SFrame reader (sysdeps/generic/sframe-read.c, what backtrace () uses) has no
   public API; this program is linked with that file, compiled from the glibc tree as
   it is, and calls only the reader's own entry points, as sysdeps/generic/sframe.c
   (__stacktrace_sframe) does: __sframe_decode on the section, then per PC
   __sframe_find_fre and the three offset getters.
   Build (in the directory holding an unpacked glibc-2.43 tree):
     gcc -I glibc-2.43/sysdeps/generic -include stddef.h '-Dlibc_hidden_proto(n)=' \
       glibc-lookup.c glibc-2.43/sysdeps/generic/sframe-read.c -o glibc-lookup
   (libc_hidden_proto and offsetof are what glibc's own build supplies around it.)
   Usage: glibc-lookup SECTION [PC...]  (PCs relative to the start of the section, as
   __stacktrace_sframe passes them: frame->pc - sframe_vma; decimal or 0x-hex).
   The section is read into a buffer of exactly its size.  */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sframe-read.h>

static const char *
urc (_Unwind_Reason_Code e)
{
  return e == _URC_NO_REASON ? "_URC_NO_REASON"
	 : e == _URC_END_OF_STACK ? "_URC_END_OF_STACK" : "other";
}

int
main (int argc, char **argv)
{
  if (argc < 2)
    {
      fprintf (stderr, "usage: %s SECTION [PC...]\n", argv[0]);
      return 2;
    }
  FILE *f = fopen (argv[1], "rb");
  if (f == NULL || fseek (f, 0, SEEK_END) != 0)
    {
      perror (argv[1]);
      return 2;
    }
  long n = ftell (f);
  rewind (f);
  char *buf = malloc (n > 0 ? n : 1);
  if (buf == NULL || fread (buf, 1, n, f) != (size_t) n)
    {
      perror (argv[1]);
      return 2;
    }
  fclose (f);
  printf ("section: %ld bytes\n", n);
  fflush (stdout);

  sframe_decoder_ctx ctx;
  memset (&ctx, 0, sizeof ctx);
  _Unwind_Reason_Code e = __sframe_decode (&ctx, buf);
  printf ("__sframe_decode: %s\n", urc (e));
  fflush (stdout);
  if (e != _URC_NO_REASON)
    return 1;

  for (int i = 2; i < argc; i++)
    {
      int32_t pc = (int32_t) strtol (argv[i], NULL, 0);
      sframe_frame_row_entry fre;
      memset (&fre, 0, sizeof fre);
      e = __sframe_find_fre (&ctx, pc, &fre);
      if (e != _URC_NO_REASON)
	{
	  printf ("pc %d: __sframe_find_fre: %s\n", pc, urc (e));
	  fflush (stdout);
	  continue;
	}
      printf ("pc %d: FRE start %u, info %#x:", pc, fre.fre_start_addr,
	      fre.fre_info);
      _Unwind_Reason_Code ce, re, fe;
      int32_t cfa = __sframe_fre_get_cfa_offset (&ctx, &fre, &ce);
      int32_t ra = __sframe_fre_get_ra_offset (&ctx, &fre, &re);
      int32_t fp = __sframe_fre_get_fp_offset (&ctx, &fre, &fe);
      if (ce == _URC_NO_REASON)
	printf (" CFA %s%+d,",
		__sframe_fre_get_base_reg_id (&fre) == SFRAME_BASE_REG_SP
		? "sp" : "fp", cfa);
      else
	printf (" CFA %s,", urc (ce));
      if (re == _URC_NO_REASON)
	printf (" RA at CFA%+d,", ra);
      else
	printf (" RA %s,", urc (re));
      if (fe == _URC_NO_REASON)
	printf (" FP at CFA%+d\n", fp);
      else
	printf (" FP %s\n", urc (fe));
      fflush (stdout);
    }
  free (buf);
  return 0;
}
