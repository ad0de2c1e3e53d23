/* ci/check-triggers' driver: walk an SFrame section with a sanitizer build of libsframe as
   sframe-worker's decode walks it (worker/src/libsframe.rs): sframe_decode on a heap copy of
   exactly the file's bytes, then per function its descriptor getter and
   sframe_decoder_get_fre (i, j) for j < min (num_fres, 4096), stopping at the first failure.
   REL is 240, 244 or 247 (the getters differ).  Prints "ok" or "rejected N"; a bad access
   ends it in the sanitizer's report.  The public API is declared here (the releases agree
   on it); a frame-row entry is at most 32 bytes in every release.  */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct sframe_decoder_ctx sframe_decoder_ctx;
typedef struct { unsigned char bytes[64]; } fre_t;
extern sframe_decoder_ctx *sframe_decode (const char *, size_t, int *);
extern unsigned int sframe_decoder_get_num_fidx (sframe_decoder_ctx *);
extern int sframe_decoder_get_fre (sframe_decoder_ctx *, unsigned int, unsigned int, fre_t *);
extern void sframe_decoder_free (sframe_decoder_ctx **);
extern int sframe_decoder_get_funcdesc (sframe_decoder_ctx *, unsigned int, uint32_t *,
					uint32_t *, int32_t *, unsigned char *);
#if REL >= 244
extern int sframe_decoder_get_funcdesc_v2 (sframe_decoder_ctx *, unsigned int, uint32_t *,
					   uint32_t *, int32_t *, unsigned char *, uint8_t *);
#endif
#if REL >= 247
extern int sframe_decoder_get_funcdesc_v3 (sframe_decoder_ctx *, unsigned int, uint32_t *,
					   uint32_t *, int64_t *, unsigned char *,
					   unsigned char *, uint8_t *);
#endif

int
main (int argc, char **argv)
{
  if (argc != 2)
    return 2;
  FILE *f = fopen (argv[1], "rb");
  if (!f)
    return 2;
  static char tmp[1 << 22];
  size_t n = fread (tmp, 1, sizeof tmp, f);
  fclose (f);
  char *buf = malloc (n ? n : 1);
  memcpy (buf, tmp, n);
  int err = 0;
  sframe_decoder_ctx *d = sframe_decode (buf, n, &err);
  if (!d)
    {
      printf ("rejected %d\n", err);
      return 0;
    }
  unsigned int nf = sframe_decoder_get_num_fidx (d);
  uint8_t ver = (uint8_t) buf[2];
  for (unsigned int i = 0; i < nf; i++)
    {
      uint32_t num_fres = 0, size = 0;
      unsigned char info = 0;
      int32_t start32;
      int rc;
#if REL == 240
      rc = sframe_decoder_get_funcdesc (d, i, &num_fres, &size, &start32, &info);
#elif REL == 244
      uint8_t rep;
      if (ver == 1)
	rc = sframe_decoder_get_funcdesc (d, i, &num_fres, &size, &start32, &info);
      else
	rc = sframe_decoder_get_funcdesc_v2 (d, i, &num_fres, &size, &start32, &info, &rep);
#else
      uint8_t rep;
      if (ver == 3)
	{
	  int64_t start64;
	  unsigned char info2;
	  rc = sframe_decoder_get_funcdesc_v3 (d, i, &num_fres, &size, &start64, &info,
					       &info2, &rep);
	}
      else
	rc = sframe_decoder_get_funcdesc_v2 (d, i, &num_fres, &size, &start32, &info, &rep);
#endif
      if (rc)
	continue;
      uint32_t lim = num_fres < 4096 ? num_fres : 4096;
      for (uint32_t j = 0; j < lim; j++)
	{
	  fre_t fre;
	  if (sframe_decoder_get_fre (d, i, j, &fre))
	    break;
	}
    }
  sframe_decoder_free (&d);
  printf ("ok\n");
  return 0;
}
