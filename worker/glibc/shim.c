/* shim.c: a thin wrapper around glibc's SFrame reader, written for sframe-conform.

   ci/glibc-reader compiles this file into one shared object with the reader itself:
   sysdeps/generic/sframe-read.c of the glibc release under test is included below, as it
   is, so that the reader's own static helpers can be called too.  Nothing here decodes
   SFrame: every value comes from a function of the reader (the exported __sframe_decode,
   __sframe_find_fre, __sframe_fre_get_*; the static helpers __sframe_find_fre is built
   from) or from the decoder context and row entry those fill.  The wrapper only copies
   them into plain structs the worker (worker/src/glibc.rs) reads; the stack-walk
   arithmetic that says what the offsets mean (sysdeps/generic/sframe.c,
   __stacktrace_sframe) is applied by the worker.

   The reader takes no buffer length: the worker hands it a section that ends at a guard
   page, and serves each request in a forked child.  The reader's own look-up
   (__sframe_find_fre and the getters, gs_find) reads wherever the section's counts and
   offsets point, as in glibc; the wrapper's own walk over every function and row
   (gs_fde, gs_fres) reads nothing outside the section: it is given the section's
   length and stops there, so that a read past the section is always the reader's.  */

/* What glibc's build supplies around the reader: <stddef.h> (offsetof, which glibc's
   internal headers bring in) and libc_hidden_proto (symbol visibility inside libc.so;
   sframe.h declares its walker's helpers with it).  */
#include <stddef.h>
#define libc_hidden_proto(name)

#include "sframe-read.c"

struct gs_header
{
  uint16_t magic;
  uint8_t version, flags, abi, auxhdr_len;
  int8_t fixed_fp, fixed_ra;
  uint32_t num_fdes, num_fres, fre_len, fdeoff, freoff;
};

struct gs_fde
{
  /* sframe_decoder_get_secrel_func_start_addr: the start as the reader resolves it.  */
  int32_t start;
  int32_t raw_start;
  uint32_t size, start_fre_off, num_fres;
  uint8_t info, rep_size, fre_type, fde_type;
};

struct gs_row
{
  /* 0 = _URC_NO_REASON; otherwise the getter's error (_URC_END_OF_STACK).  */
  int32_t cfa_err, ra_err, fp_err;
  int32_t cfa_offset, ra_offset, fp_offset;
  uint32_t fre_start;
  uint8_t base_reg_id, fre_info, ra_mangled, pad;
  /* The function whose row this is (look-ups), -1 when unknown.  */
  int32_t func_idx;
  int32_t func_start;
};

/* The reader's context, and the section it was decoded from (for the wrapper's walk).  */
struct gs_ctx
{
  sframe_decoder_ctx dctx;
  const char *buf;
  size_t len;
};

size_t
gs_ctx_size (void)
{
  return sizeof (struct gs_ctx);
}

int
gs_decode (sframe_decoder_ctx *dctx, const char *buf, size_t len)
{
  struct gs_ctx *c = (struct gs_ctx *) dctx;
  memset (c, 0, sizeof (*c));
  c->buf = buf;
  c->len = len;
  return __sframe_decode (dctx, buf);
}

/* Whether the N bytes at P lie inside the section DCTX was decoded from.  */
static int
gs_inside (sframe_decoder_ctx *dctx, const void *p, size_t n)
{
  struct gs_ctx *c = (struct gs_ctx *) dctx;
  uintptr_t a = (uintptr_t) p, b = (uintptr_t) c->buf;
  return a >= b && a - b <= c->len && n <= c->len - (a - b);
}

void
gs_header (sframe_decoder_ctx *dctx, struct gs_header *h)
{
  sframe_header *sh = sframe_decoder_get_header (dctx);
  h->magic = sh->sfh_preamble.sfp_magic;
  h->version = sh->sfh_preamble.sfp_version;
  h->flags = sh->sfh_preamble.sfp_flags;
  h->abi = sh->sfh_abi_arch;
  h->auxhdr_len = sh->sfh_auxhdr_len;
  h->fixed_fp = sframe_decoder_get_fixed_fp_offset (dctx);
  h->fixed_ra = sframe_decoder_get_fixed_ra_offset (dctx);
  h->num_fdes = sh->sfh_num_fdes;
  h->num_fres = sh->sfh_num_fres;
  h->fre_len = sh->sfh_fre_len;
  h->fdeoff = sh->sfh_fdeoff;
  h->freoff = sh->sfh_freoff;
}

/* Function descriptor I as the decoder context holds it; -2 when it does not lie
   inside the section.  */
int
gs_fde (sframe_decoder_ctx *dctx, uint32_t i, struct gs_fde *o)
{
  if (i >= dctx->sfd_header.sfh_num_fdes)
    return -1;
  sframe_func_desc_entry *fdep = &dctx->sfd_funcdesc[i];
  if (!gs_inside (dctx, fdep, sizeof (*fdep)))
    return -2;
  o->raw_start = fdep->sfde_func_start_address;
  o->start = sframe_decoder_get_secrel_func_start_addr (dctx, i);
  o->size = fdep->sfde_func_size;
  o->start_fre_off = fdep->sfde_func_start_fre_off;
  o->num_fres = fdep->sfde_func_num_fres;
  o->info = fdep->sfde_func_info;
  o->rep_size = fdep->sfde_func_rep_size;
  o->fre_type = sframe_get_fre_type (fdep);
  o->fde_type = sframe_get_fde_type (fdep);
  return 0;
}

/* The getters' view of one row entry.  */
static void
gs_fill_row (sframe_decoder_ctx *dctx, sframe_frame_row_entry *frep,
	     struct gs_row *r)
{
  _Unwind_Reason_Code err;
  r->fre_start = frep->fre_start_addr;
  r->fre_info = frep->fre_info;
  r->cfa_offset = __sframe_fre_get_cfa_offset (dctx, frep, &err);
  r->cfa_err = err;
  r->base_reg_id = __sframe_fre_get_base_reg_id (frep);
  r->ra_offset = __sframe_fre_get_ra_offset (dctx, frep, &err);
  r->ra_err = err;
  r->fp_offset = __sframe_fre_get_fp_offset (dctx, frep, &err);
  r->fp_err = err;
  r->ra_mangled = sframe_get_fre_ra_mangled_p (frep->fre_info);
  r->pad = 0;
  r->func_idx = -1;
  r->func_start = 0;
}

/* The rows of function I, at most MAX, walked entry by entry with the steps of
   __sframe_find_fre's loop (start address, info byte, entry size, offsets pointer).
   Returns the number of rows; -1 when the walk stopped at an entry the loop refuses
   (no start-address size for the FRE type), -2 at an entry (start address, info byte,
   data words) that does not lie inside the section, after the rows before it.  */
int
gs_fres (sframe_decoder_ctx *dctx, uint32_t i, uint32_t max,
	 struct gs_row *out, uint32_t *n)
{
  *n = 0;
  if (i >= dctx->sfd_header.sfh_num_fdes)
    return -1;
  sframe_func_desc_entry *fdep = &dctx->sfd_funcdesc[i];
  uint32_t fre_type = sframe_get_fre_type (fdep);
  const char *fres = dctx->sfd_fres + fdep->sfde_func_start_fre_off;
  for (uint32_t k = 0; k < fdep->sfde_func_num_fres && k < max; k++)
    {
      sframe_frame_row_entry fre;
      memset (&fre, 0, sizeof (fre));
      size_t addr_size = sframe_fre_start_addr_size (fre_type);
      if (addr_size == 0)
	return -1;
      if (!gs_inside (dctx, fres, addr_size + sizeof (fre.fre_info)))
	return -2;
      sframe_decode_fre_start_address (fres, &fre.fre_start_addr, fre_type);
      fre.fre_info = *(uint8_t *) (fres + addr_size);
      size_t size = sframe_fre_entry_size (&fre, addr_size);
      if (!gs_inside (dctx, fres, size))
	return -2;
      fre.fre_offsets = fres + addr_size + sizeof (fre.fre_info);
      gs_fill_row (dctx, &fre, &out[k]);
      *n = k + 1;
      fres += size;
    }
  return (int) *n;
}

/* __sframe_find_fre for PC; 1 with the row in R, 0 when it finds none.  The function
   is the one the reader's own FDE search (sframe_get_funcdesc_with_addr_internal, which
   __sframe_find_fre calls first) returns for PC.  */
int
gs_find (sframe_decoder_ctx *dctx, int32_t pc, struct gs_row *r)
{
  sframe_frame_row_entry fre;
  memset (&fre, 0, sizeof (fre));
  if (__sframe_find_fre (dctx, pc, &fre) != _URC_NO_REASON)
    return 0;
  gs_fill_row (dctx, &fre, r);
  int err = 0;
  uint32_t idx = 0;
  if (sframe_get_funcdesc_with_addr_internal (dctx, pc, &err, &idx) != NULL)
    {
      r->func_idx = (int32_t) idx;
      r->func_start = sframe_decoder_get_secrel_func_start_addr (dctx, idx);
    }
  return 1;
}
