/* Frames larger than 255 and 65535 bytes: CFA and register offsets that need 2- and 4-byte
   FRE data words.  */
#include "common.h"

int frame_300(int i)
{
  char buf[300];
  ext_use(buf);
  return buf[i];
}

int frame_5000(int i)
{
  long buf[625];
  ext_use(buf);
  return (int) buf[i] + ext_sink(i);
}

int frame_70000(int i)
{
  char buf[70000];
  ext_use(buf);
  return buf[i] + ext_sink(buf[i + 1]);
}

int frame_1m(int i)
{
  char buf[1 << 20];
  ext_use(buf);
  return buf[i];
}
