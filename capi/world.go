package main

// Glue of the MPI world (world/mpi): a BSPlib section spread over the
// ranks of an Open MPI job when the program was started by mpirun. The
// job's state and how it ends are world/mpi's Job; here are the exports
// world.c and the faces' C call, and the hooks the job is given.

/*
#include <stdio.h>
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"

	"libebsp/emesh"
	"libebsp/engine"
	"libebsp/env"
	"libebsp/world/mpi"
)

// job is nil unless started by mpirun with 2 or more ranks.
var job *mpi.Job

// jobHooks are what the job needs of the library: its output, C's exit,
// and the C side's section flag and leave round.
var jobHooks = mpi.JobHooks{
	Complain:   complain,
	Flush:      func() { C.out_flush() },
	FlushStdio: func() { C.fflush(nil) },
	Exit:       func(code int) { C.exit(C.int(code)) },
	SetSection: func(on bool) { C.ebsp_world_section = boolInt(on) },
	LeaveRound: func(pid, seconds int) bool {
		return C.world_leave_round(C.int(machine.Core(pid).Superstep()), C.int(seconds)) == 0
	},
	ReportDiverged: func(place func(pid int) (engine.Where, int)) {
		reportStall(machine.StallReportOf(engine.DeadlockHeader, place), "deadlock")
	},
}

// joinMPI starts MPI when the program runs under mpirun with several
// ranks, and returns the mesh of the whole job's cores (also for one rank
// when EBSP_RANK_CORES is set); else mesh as it is.
func joinMPI(mesh emesh.Mesh, get env.Getenv) (emesh.Mesh, error) {
	if ranks := env.MPIRanksOf(get); ranks < 2 {
		if ranks == 1 && get(env.RankCores) != "" {
			// mpirun -n 1 -x EBSP_RANK_CORES=C: a job of one rank of C
			// cores, as with more ranks (no MPI is needed for one)
			perRank, err := env.RankCoresOf(get)
			if err != nil {
				complain(err.Error())
			}
			return emesh.SquarestMesh(perRank)
		}
		return mesh, nil
	}
	j, err := mpi.JoinJob(get, jobHooks)
	if err != nil {
		return mesh, fmt.Errorf("mpirun: %v", err)
	}
	job = j
	C.ebsp_world_ranks, C.ebsp_world_rank, C.ebsp_world_per_rank = C.int(j.Ranks()), C.int(j.Rank()), C.int(j.PerRank())
	C.ebsp_cpu_sharers = C.int(env.MPILocalRanksOf(get))
	return emesh.SquarestMesh(j.Cores())
}

// chooseWorld sets the world of the next run, unless an MPI section set
// it: shared memory, or with copy the test world that copies every block.
func chooseWorld(m *engine.Machine, copy bool) {
	if job.Spans() {
		return
	}
	if copy {
		m.UseTransport(engine.NewCopyingTransport)
	} else {
		m.UseTransport(nil)
	}
}

// goWorldFailed reports a round that failed (world.c).
//
//export goWorldFailed
func goWorldFailed(unpacking C.int) { job.RoundFailed(unpacking != 0) }

// goWorldDiverged: ranks whose cores wait in different barriers
// (world.c); rank 0 reports the deadlock.
//
//export goWorldDiverged
func goWorldDiverged() { job.Diverged() }

// goWorldLocal gives the pids this rank runs in the section of nprocs
// cores: all of them outside mpirun.
//
//export goWorldLocal
func goWorldLocal(nprocs C.int, first, count *C.int) {
	f, n := job.Local(int(nprocs))
	*first, *count = C.int(f), C.int(n)
	C.ebsp_world_first, C.ebsp_world_count = *first, *count
}

// goWorldEnd ends a rank other than 0 after its section (code 0), or
// the job after a stopped section (code non-zero).
//
//export goWorldEnd
func goWorldEnd(code C.int) { job.End(int(code)) }

// goWorldFinalize ends MPI at the exit of a rank with status (on_exit,
// world.c).
//
//export goWorldFinalize
func goWorldFinalize(status C.int) { job.Finalize(int(status)) }

// goWorldLeave ends a rank other than 0 whose cores all returned from the
// SPMD function without bsp_end.
//
//export goWorldLeave
func goWorldLeave(pid C.int) { job.Leave(int(pid)) }
