#include "textflag.h"

// func tlsOffset() int64
TEXT ·tlsOffset(SB),NOSPLIT,$0-8
	MOVQ	TLS, AX
	MOVQ	AX, ret+0(FP)
	RET
