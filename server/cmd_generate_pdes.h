/* cmd_generate_pdes.h: `ariadned generate --kind pdes ...`, the simulated
 * ROSS run of gen/pdes_sim.h (cmd_generate.c hands over to it). */
#ifndef ARIADNE_CMD_GENERATE_PDES_H
#define ARIADNE_CMD_GENERATE_PDES_H

/* argv as cmd_generate gets it (argv[0] is the first option); returns the
 * exit status: 0, 1 (failure), 2 (bad usage). */
int cmd_generate_pdes(int argc, char **argv);

#endif
