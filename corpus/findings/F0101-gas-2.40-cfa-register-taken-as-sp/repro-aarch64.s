# AArch64 (assemble with -EB for aarch64-be), minimized random function: CFA on x28
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_endproc
	.pushsection .text.unlikely,"ax",@progbits
f0.cold:
	.cfi_startproc
	.cfi_def_cfa x28, -104125912
	nop
	.cfi_endproc
	.popsection
	.size f0, .-f0
