# s390x: a signal frame whose CFI SFrame cannot express (FP undefined)
	.text
	.globl f0
	.type f0, @function
f0:
	.cfi_startproc
	.cfi_signal_frame
	lay %r15, -4096(%r15)
	.cfi_undefined %r11
	.cfi_endproc
	.size f0, .-f0
