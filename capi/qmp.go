package main

import (
	_ "libebsp/faces/qmp" // its C code: the QMP calls (include/qmp.h)
)
