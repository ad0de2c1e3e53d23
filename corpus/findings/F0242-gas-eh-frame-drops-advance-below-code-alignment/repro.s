// The function of ld's PR 32769 test (pr32769-2.s), without its cold part: two data bytes,
// then a CFA change two bytes in, which .eh_frame (code alignment factor 4) cannot place.
	.section .text.foo
	.globl	foo
	.type	foo, @function
foo:
	.cfi_startproc
	.byte 0
	.byte 0
	.cfi_def_cfa_offset 16
	.cfi_endproc
	.size	foo, .-foo
