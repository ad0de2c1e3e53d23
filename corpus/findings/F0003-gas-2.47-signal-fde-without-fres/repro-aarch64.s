# AArch64 (assemble with -EB for aarch64-be): a signal frame whose CFI SFrame cannot express (FP in another register)
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_signal_frame
	.cfi_register x29, x19
	nop
	.cfi_endproc
	.size f0, .-f0
