#include "testhelp.h"
int main(void) { return 0; }
