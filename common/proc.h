/* The process table: who a process is, for a message that names the holder
 * of a lock (txn/txn_lock.c). */
#ifndef WD_PROC_H
#define WD_PROC_H

/* The command line of process pid as the process table has it (Linux:
 * /proc/PID/cmdline), its arguments joined by spaces (control characters
 * too: one line) and cut at 200 bytes;
 * malloc'd. NULL when the table does not say (no such process, no /proc). */
char *wd_process_cmdline(long pid);

#endif
