/*
 * lowmem_exec(struct lowmem_regs *r): runs the instruction at
 * lowmem_code (lowmem.c: a faulting instruction re-encoded, followed by a
 * jump to lowmem_back) with the registers, flags and FPU/SSE/AVX state of
 * r, then stores them back into r. RSP stays the caller's: lowmem.c
 * refuses instructions that use the stack. One call at a time (lowmem.c's
 * lock): the registers pass through the globals below.
 *
 * struct lowmem_regs: gpr[16] (x86 order: rax rcx rdx rbx rsp rbp rsi rdi
 * r8..r15) at 0, rflags at 128, fpstate at 136 (an XSAVE area when
 * xfeatures is not 0, else an FXSAVE one), xfeatures at 144, host_rsp at 152.
 */
    .text
    .globl lowmem_exec
    .hidden lowmem_exec
    .type lowmem_exec, @function
lowmem_exec:
    push %rbx
    push %rbp
    push %r12
    push %r13
    push %r14
    push %r15
    mov %rdi, lowmem_regs_ptr(%rip)
    mov %rsp, 152(%rdi)
    mov 136(%rdi), %rcx
    mov 144(%rdi), %rax
    test %rax, %rax
    jz 1f
    mov %rax, %rdx
    shr $32, %rdx
    xrstor (%rcx)
    jmp 2f
1:  fxrstor (%rcx)
2:  pushq 128(%rdi)
    popfq
    mov 0(%rdi), %rax
    mov 8(%rdi), %rcx
    mov 16(%rdi), %rdx
    mov 24(%rdi), %rbx
    mov 40(%rdi), %rbp
    mov 48(%rdi), %rsi
    mov 64(%rdi), %r8
    mov 72(%rdi), %r9
    mov 80(%rdi), %r10
    mov 88(%rdi), %r11
    mov 96(%rdi), %r12
    mov 104(%rdi), %r13
    mov 112(%rdi), %r14
    mov 120(%rdi), %r15
    mov 56(%rdi), %rdi
    jmp *lowmem_code(%rip)

    .globl lowmem_back
    .hidden lowmem_back
    .type lowmem_back, @function
lowmem_back:
    mov %rdi, lowmem_saved_rdi(%rip)
    mov lowmem_regs_ptr(%rip), %rdi
    mov %rax, 0(%rdi)
    mov %rcx, 8(%rdi)
    mov %rdx, 16(%rdi)
    mov %rbx, 24(%rdi)
    mov %rbp, 40(%rdi)
    mov %rsi, 48(%rdi)
    mov %r8, 64(%rdi)
    mov %r9, 72(%rdi)
    mov %r10, 80(%rdi)
    mov %r11, 88(%rdi)
    mov %r12, 96(%rdi)
    mov %r13, 104(%rdi)
    mov %r14, 112(%rdi)
    mov %r15, 120(%rdi)
    mov lowmem_saved_rdi(%rip), %rax
    mov %rax, 56(%rdi)
    pushfq
    popq 128(%rdi)
    cld
    mov 136(%rdi), %rcx
    mov 144(%rdi), %rax
    test %rax, %rax
    jz 3f
    mov %rax, %rdx
    shr $32, %rdx
    xsave (%rcx)
    jmp 4f
3:  fxsave (%rcx)
4:  mov 152(%rdi), %rsp
    pop %r15
    pop %r14
    pop %r13
    pop %r12
    pop %rbp
    pop %rbx
    ret

    .bss
    .align 8
    .hidden lowmem_regs_ptr
lowmem_regs_ptr: .quad 0
    .hidden lowmem_saved_rdi
lowmem_saved_rdi: .quad 0
    .globl lowmem_code
    .hidden lowmem_code
lowmem_code: .quad 0

    .section .note.GNU-stack,"",@progbits
