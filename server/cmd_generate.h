/* cmd_generate.h: `ariadned generate`, the example-trace generator.
 *
 * argv[0] is "generate". Writes a simulated StarPU Cholesky trace directory
 * (see src/gen/cholesky_sim.h) and prints one JSON line summarising it.
 * Returns the process exit status (0 on success, 2 on bad usage, 1 on
 * failure).
 */
#ifndef ARIADNE_CMD_GENERATE_H
#define ARIADNE_CMD_GENERATE_H

int cmd_generate(int argc, char **argv);

#endif
