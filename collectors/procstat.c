/* Placeholder until the collector lands. */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "soak-procstat: not built yet\n");
	return 3;
}
