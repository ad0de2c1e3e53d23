//! One CPU per process of a group of like processes (the jobs of a fuzzing run), for the
//! crates that keep `unsafe` out: the process takes the first free slot of a directory of
//! lock files, one per CPU it may run on, and is pinned to that CPU, with every process it
//! starts after (its workers). The slot is free again when the process ends (the kernel
//! drops its lock).
//!
//! Why: a fuzzing job and its workers answer each other in turn, so each request wakes a
//! process that sleeps. On the same CPU that is a switch; on another, an idle one, it is an
//! inter-processor interrupt and, on a virtual machine, that CPU's exit from its halt: most
//! of a short request's cost there. With as many jobs as CPUs, one CPU each, no job waits
//! for another's wake-ups either.

use std::fs::File;
use std::os::fd::AsRawFd;
use std::path::Path;

/// Take the first free slot of `dir` (created if needed) and pin this process to its CPU:
/// that CPU's number, or `None` when every slot is taken (the process is left unpinned) or
/// when the slots cannot be made or the CPU set read or set (said in the `Err`).
pub fn take(dir: &Path) -> Result<Option<usize>, String> {
    let Some((cpu, lock)) = lock_slot(dir, &allowed_cpus()?)? else {
        return Ok(None);
    };
    pin(cpu)?;
    // The lock lives as long as the process: the descriptor is never closed.
    std::mem::forget(lock);
    Ok(Some(cpu))
}

/// The first slot of `dir` no other open file holds locked, for one of `cpus`: its CPU
/// and the lock, held until the file is closed.
fn lock_slot(dir: &Path, cpus: &[usize]) -> Result<Option<(usize, File)>, String> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for (slot, &cpu) in cpus.iter().enumerate() {
        let path = dir.join(format!("slot-{slot}"));
        let file = File::options()
            .create(true)
            .append(true)
            .open(&path)
            .map_err(|e| format!("{}: {e}", path.display()))?;
        // SAFETY: flock on a descriptor this process owns; non-blocking.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok(Some((cpu, file)));
        }
    }
    Ok(None)
}

/// The CPUs this process may run on, in order.
fn allowed_cpus() -> Result<Vec<usize>, String> {
    // SAFETY: a zeroed cpu_set_t is an empty set; sched_getaffinity fills it for this process.
    let set = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        if libc::sched_getaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &mut set) != 0 {
            return Err(format!(
                "sched_getaffinity: {}",
                std::io::Error::last_os_error()
            ));
        }
        set
    };
    // SAFETY: CPU_ISSET reads the set, for CPU numbers inside it.
    Ok((0..libc::CPU_SETSIZE as usize)
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

/// Pin this process (its calling thread, and so what it starts after) to `cpu`.
fn pin(cpu: usize) -> Result<(), String> {
    // SAFETY: a zeroed cpu_set_t is an empty set; CPU_SET adds one CPU of it; the set is
    // passed with its size.
    let r = unsafe {
        let mut set: libc::cpu_set_t = std::mem::zeroed();
        libc::CPU_SET(cpu, &mut set);
        libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), &set)
    };
    if r != 0 {
        return Err(format!(
            "sched_setaffinity to CPU {cpu}: {}",
            std::io::Error::last_os_error()
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("sframe-run-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        dir
    }

    #[test]
    fn slots_are_distinct_until_freed() {
        let dir = scratch("cpu-slots");
        let cpus = [3, 5];
        let (a, lock_a) = lock_slot(&dir, &cpus).unwrap().unwrap();
        let (b, _lock_b) = lock_slot(&dir, &cpus).unwrap().unwrap();
        assert_eq!((a, b), (3, 5));
        // Every slot held: none.
        assert!(lock_slot(&dir, &cpus).unwrap().is_none());
        // A holder gone (its process ended): its slot is free again.
        drop(lock_a);
        assert_eq!(lock_slot(&dir, &cpus).unwrap().map(|s| s.0), Some(3));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn taking_a_slot_pins_to_its_cpu() {
        let dir = scratch("cpu-pin");
        let cpus = allowed_cpus().unwrap();
        // On a thread of its own: pinning applies to the calling thread and what it starts.
        let (took, after) = std::thread::spawn(move || {
            let took = take(&dir).unwrap();
            let _ = std::fs::remove_dir_all(&dir);
            (took, allowed_cpus().unwrap())
        })
        .join()
        .unwrap();
        assert_eq!(took, Some(cpus[0]));
        assert_eq!(after, [cpus[0]]);
    }
}
