/*
 * The context switch of the coroutine scheduler (sched_coro.c), x86-64
 * System V: only the callee-saved registers are saved, on the stack being
 * left, since a switch is an ordinary call for the C code around it. The
 * 386 build has no switch and runs cores as threads (sched_coro.c).
 */

/* void ebsp_coro_switch(void **save_sp, void *load_sp) */
	.text
	.globl	ebsp_coro_switch
	.hidden	ebsp_coro_switch
	.type	ebsp_coro_switch, @function
ebsp_coro_switch:
	pushq	%rbp
	pushq	%rbx
	pushq	%r12
	pushq	%r13
	pushq	%r14
	pushq	%r15
	movq	%rsp, (%rdi)
	movq	%rsi, %rsp
	popq	%r15
	popq	%r14
	popq	%r13
	popq	%r12
	popq	%rbx
	popq	%rbp
	ret
	.size	ebsp_coro_switch, .-ebsp_coro_switch

/* First code of a new coroutine, reached by the `ret` above from the frame
 * sched_coro.c builds: calls r12(rbx) on a 16-byte aligned stack. That
 * function never returns (it switches away for good). */
	.globl	ebsp_coro_boot
	.hidden	ebsp_coro_boot
	.type	ebsp_coro_boot, @function
ebsp_coro_boot:
	movq	%rbx, %rdi
	callq	*%r12
	ud2
	.size	ebsp_coro_boot, .-ebsp_coro_boot

	.section .note.GNU-stack,"",@progbits
