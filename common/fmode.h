/*
 * fmode — the permissions of the files and directories soak creates.
 *
 * A database (a run's, an agent's, a merged one, an import's), a report and its data files
 * hold what a test measured and what it ran against; they are passed around on purpose,
 * and until then they are their owner's.  So new files are created 0600 and new
 * directories 0700, unless the environment variable SOAK_FILE_MODE (or `soak --file-mode
 * MODE`, which sets it for soak and every process soak starts: collectors, gnuplot) gives
 * another mode: 0640 lets the group read, 0644 everybody.  The umask applies on top, as
 * it does to every file: it can only take permissions away, so a umask stricter than 077
 * is honoured too (a umask that takes the owner's write away makes a database soak then
 * cannot write, and says so).  A file that exists keeps its mode: soak never changes one.
 *
 * Functions read the environment on each call and keep no state.
 */
#ifndef SOAK_FMODE_H
#define SOAK_FMODE_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define FMODE_DEFAULT 0600
#define FMODE_ENV     "SOAK_FILE_MODE"

/* Parses an octal mode of read and write bits, the owner's both (0600, 0640, 0644, 0660,
 * 0666...); 0, or -1 with err. */
int fmode_parse(const char *s, mode_t *mode, char *err, size_t errlen);
/* Whether $SOAK_FILE_MODE, when set, is a mode fmode_parse takes; 0, or -1 with err
 * (programs check it as they start, so that a typo is an error, not a silent 0600). */
int fmode_check_env(char *err, size_t errlen);
/* The mode of new files: $SOAK_FILE_MODE when set and valid, else 0600. */
mode_t fmode_file(void);
/* The mode of new directories: the file mode with x wherever r is (0600 -> 0700). */
mode_t fmode_dir(void);
/* The umask a child process (gnuplot) should add to its own so that what it creates gets
 * the modes above. */
mode_t fmode_umask(void);
/* Creates path, empty, with fmode_file() unless it exists (a link there, even dangling,
 * counts as existing and is not followed); 0 either way, -1 with errno when it can be
 * neither (the caller's own open then says why).  Files soak writes are created by
 * outdir.h, the one way, which uses these modes. */
int fmode_create(const char *path);
/* mkdir -p: path and every missing parent, new ones with fmode_dir(); 0, or -1 with err
 * ("cannot create 'DIR': why"). */
int fmode_mkdir_p(const char *path, char *err, size_t errlen);

#endif
