/* Placeholder until the server lands. */
#include <stdio.h>

int main(void)
{
	fprintf(stderr, "regserver: not built yet\n");
	return 3;
}
