/* natural.h: names in their natural order. */
#ifndef ARIADNE_NATURAL_H
#define ARIADNE_NATURAL_H

/* <0, 0, >0 as strcmp, but runs of digits compare as numbers: "CPU2" <
 * "CPU10", "PE 9" < "PE 10" (leading zeros do not count). */
int ari_natural_cmp(const char *a, const char *b);

#endif
