package main

// Glue of the MPI world (world/mpi): a BSPlib section spread over the
// ranks of an Open MPI job when the program was started by mpirun.

/*
#include <stdio.h>
#include <stdlib.h>
#include "shim.h"
*/
import "C"

import (
	"fmt"
	"time"

	"libebsp/emesh"
	"libebsp/engine"
	"libebsp/env"
	"libebsp/world/mpi"
)

var (
	mpiProc    *mpi.Process // nil unless started by mpirun with 2 or more ranks
	mpiSection *mpi.World   // the running section's transport
	// rank 0 after the first section: the other ranks have ended
	mpiAlone bool
	// the ranks of the last section (0: rank 0 alone), which endJob tells
	mpiSectionRanks int
	// another rank ends the job (it reports, and says so: EndArrived, or
	// every rank knows, as after rounds that diverged): this one ends
	// quietly with status 0
	endedElsewhere bool
	// an MPI call failed in a round: the job ends without MPI
	mpiFailed bool
)

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
	perRank, err := env.RankCoresOf(get)
	if err != nil {
		complain(err.Error())
	}
	p, err := mpi.Join(perRank)
	if err != nil {
		return mesh, fmt.Errorf("mpirun: %v", err)
	}
	mpiProc = p
	C.ebsp_world_ranks, C.ebsp_world_rank, C.ebsp_world_per_rank = C.int(p.Ranks), C.int(p.Rank), C.int(p.PerRank)
	C.ebsp_cpu_sharers = C.int(env.MPILocalRanksOf(get))
	test, err := env.MPITestOf(get)
	if err != nil {
		complain(err.Error())
	}
	p.TestSettings(test.DelayRank, test.DelayMS, test.Trace, test.Window)
	block, err := env.MPIBlockOf(get)
	if err != nil {
		complain(err.Error())
	}
	p.BlockLimit(block)
	return emesh.SquarestMesh(p.Cores())
}

// beginMPISection agrees with the other ranks on the section's core count
// (rank 0's) and makes the next run's transport the MPI world. A rank
// without cores in it ends here.
func beginMPISection(m *engine.Machine, nprocs int) (int, error) {
	if mpiProc == nil {
		return nprocs, nil
	}
	if mpiAlone {
		if nprocs > mpiProc.PerRank {
			return 0, fmt.Errorf("bsp_begin: %d cores: under mpirun the other ranks end with the first SPMD section (as with BSPonMPI), "+
				"so a later section has only the %d core(s) of rank 0 (%s)", nprocs, mpiProc.PerRank, env.RankCores)
		}
		m.UseTransport(nil)
		mpiSectionRanks = 0
		return nprocs, nil
	}
	nprocs, err := mpiProc.Agree(nprocs)
	if err != nil {
		return 0, fmt.Errorf("bsp_begin: %v", err)
	}
	if _, count := mpiProc.Local(nprocs); count == 0 {
		endRank(0)
	}
	m.UseTransport(func(n int) engine.Transport {
		w, err := mpiProc.NewWorld(n, m.SyncFlags())
		if err != nil {
			complain(fmt.Sprintf("bsp_begin: rank %d: %v", mpiProc.Rank, err))
			C.out_flush()
			mpiProc.EndJob(1)
		}
		w.UsePlacement(m.Placement)
		mpiSection = w
		mpiSectionRanks = w.Ranks()
		C.ebsp_world_section = 1
		return w
	})
	return nprocs, nil
}

// chooseWorld sets the world of the next run, unless an MPI section set
// it: shared memory, or with copy the test world that copies every block.
func chooseWorld(m *engine.Machine, copy bool) {
	if mpiProc != nil && !mpiAlone {
		return
	}
	if copy {
		m.UseTransport(engine.NewCopyingTransport)
	} else {
		m.UseTransport(nil)
	}
}

// endRank ends this rank's process after its part of the job.
func endRank(code int) {
	C.out_flush()
	mpiProc.Finalize()
	C.exit(C.int(code))
}

// refuseMPI ends every rank of an EBSP host that mpirun started several
// times: the EBSP face runs in one process. Rank 0 says so and exits with
// status 1, the others with 0 (all finalize first), so that mpirun names
// rank 0 every time.
func refuseMPI(call string) {
	if mpiProc == nil {
		return
	}
	if mpiProc.Rank == 0 {
		complain(fmt.Sprintf("%s: mpirun started %d ranks of this EBSP host program; an EBSP host and its cores run in one process: "+
			"start it without mpirun (BSPlib programs, bsp.h, run across ranks)", call, mpiProc.Ranks))
		endRank(1)
	}
	endQuietly()
}

// goWorldFailed reports a round that failed (world.c): an MPI call, or
// the packing or unpacking of blocks.
//
//export goWorldFailed
func goWorldFailed(unpacking C.int) {
	what := "an MPI call failed"
	if err := mpiSection.Err(); unpacking != 0 && err != nil {
		what = err.Error()
	} else {
		mpiFailed = true // the job's end cannot count on MPI (endJob)
	}
	complain(fmt.Sprintf("rank %d: %s", mpiProc.Rank, what))
}

// goWorldLocal gives the pids this rank runs in the section of nprocs
// cores: all of them outside mpirun.
//
//export goWorldLocal
func goWorldLocal(nprocs C.int, first, count *C.int) {
	if mpiProc == nil || mpiAlone {
		*first, *count = 0, nprocs
		C.ebsp_world_first, C.ebsp_world_count = *first, *count
		return
	}
	f, n := mpiProc.Local(int(nprocs))
	*first, *count = C.int(f), C.int(n)
	C.ebsp_world_first, C.ebsp_world_count = *first, *count
}

// goWorldEnd ends a rank other than 0 after its section (code 0), or
// the job after a stopped section (code non-zero, endJob).
//
//export goWorldEnd
func goWorldEnd(code C.int) {
	if mpiProc == nil {
		return
	}
	mpiSection = nil
	C.ebsp_world_section = 0
	if code != 0 {
		endJob(int(code))
	}
	endRank(0)
}

// endJob ends the job from this rank, whose section stopped (its report
// made): it tells the other ranks of the section, which stop where they
// wait for the others (world.c's hook) and say nothing more, all
// finalize, and this rank exits with code, the others with 0, so that
// mpirun names this rank and exits with code (world/mpi/mpi.c says why
// not MPI_Abort). A rank that another one ends quietly exits with 0.
func endJob(code int) {
	C.out_flush()
	if mpiFailed {
		mpiProc.EndJob(code) // no MPI_Finalize, which might wait for ever: mpirun ends the others
	}
	if endedElsewhere || mpiProc.EndArrived() {
		endQuietly()
	}
	mpiProc.AnnounceEnd(mpiSectionRanks, code)
	endRank(code)
}

// endedWait bounds how long a rank that another one ends waits, after
// MPI_Finalize, for mpirun to end it.
const endedWait = 10 * time.Second

// endQuietly ends a rank whose job another rank ends with a non-zero
// status: it finalizes and waits for mpirun, which ends it once that rank
// exited. Exiting with 0 instead made mpirun, over TCP, once in 100 runs
// report this rank "exiting improperly" (it had not taken its
// MPI_Finalize in yet), and not the status.
func endQuietly() {
	C.out_flush()
	mpiProc.Finalize()
	C.fflush(nil)
	time.Sleep(endedWait)
	C.exit(0)
}

// goWorldFinalize ends MPI at the exit of a rank with status (on_exit,
// world.c): rank 0 before its first section lets the others end too. A
// rank whose section still runs (an exit before bsp_end) ends the job,
// whose other ranks would wait for its cores for ever: quietly, keeping
// status, when they all left the section too (rank 0, whose pid 0 may
// have returned from the SPMD function into main: leftSection); else as
// endJob does, with status (1 for 0: the other ranks' cores could not
// finish), the program's exit having said so (bsplib.c). A rank other
// than 0 exits so during its section only by a call of exit inside it:
// the return of its SPMD function is bsp_init's (goWorldLeave).
//
//export goWorldFinalize
func goWorldFinalize(status C.int) {
	if mpiProc == nil {
		return
	}
	if C.ebsp_world_section != 0 {
		C.out_flush()
		first, _ := mpiSection.LocalRange()
		left := mpiProc.Rank == 0 && leftSection(machine.Core(first).Superstep(), leaveWait)
		mpiSection = nil
		C.ebsp_world_section = 0
		if !left {
			if !endedElsewhere && !mpiProc.EndArrived() {
				mpiProc.AnnounceEnd(mpiSectionRanks, int(status))
			}
			mpiProc.Finalize()
			if status == 0 {
				mpiProc.EndJob(1) // finalized: exits with 1
			}
			return // the exit goes on with status
		}
	}
	mpiProc.EndWithoutSection()
	mpiProc.Finalize()
}

// leaveWait bounds rank 0's wait, at its exit, for the other ranks to
// leave their section too (a rank that computes on is ended).
const leaveWait = 1 // seconds

// leftSection is the round of a rank whose cores left the section
// without bsp_end: rank 0's pid 0 returned into main and the program
// exits, another rank's cores returned from the SPMD function. In one
// process that is no error until a core waits for such a core, and the
// program's exit ends it. The rank waits in a round of its own kind until
// every rank is in one (rank 0 once its program exits): true, and they
// all end. A rank whose cores wait in a barrier instead makes the round
// diverge, which rank 0 reports as a deadlock of the ranks' barriers.
func leftSection(step, seconds int) bool {
	return C.world_leave_round(C.int(step), C.int(seconds)) == 0
}

// goWorldLeave ends a rank other than 0 whose cores all returned from the
// SPMD function without bsp_end (leftSection); when another rank's cores
// wait in a barrier instead, rank 0 reports the deadlock and ends the job.
//
//export goWorldLeave
func goWorldLeave(pid C.int) {
	if !leftSection(machine.Core(int(pid)).Superstep(), 0) {
		goWorldDiverged() // rank 0 reports, and ends the job
		mpiSection = nil
		C.ebsp_world_section = 0
		endQuietly()
	}
	goWorldEnd(0)
}

// endMPISection: the section is over; on rank 0 a later one runs alone.
func endMPISection() {
	if mpiProc != nil {
		mpiSection = nil
		C.ebsp_world_section = 0
		mpiAlone = true
	}
}
