# s390x leaf: the frame pointer kept in %f0, the CFA based on %r11 for a while. GNU as 2.47
# writes a flexible FDE; its CFA offset data words are 0 (= 160 after the s390x decode).
	.text
	.globl	leaf
	.type	leaf, @function
leaf:
	.cfi_startproc
	ldgr	%f0, %r11
	.cfi_register %r11, %f0
	lgr	%r11, %r15
	.cfi_def_cfa_register %r11
	ar	%r2, %r3
	lgdr	%r11, %f0
	.cfi_def_cfa_register %r15
	.cfi_restore %r11
	br	%r14
	.cfi_endproc
	.size	leaf, .-leaf
	.section	.note.GNU-stack,"",@progbits
