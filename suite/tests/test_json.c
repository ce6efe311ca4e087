/* The JSON writer: nesting, commas, escaping, numbers. */
#include <math.h>

#include "check.h"
#include "ioscore/json.h"

int main(void)
{
    struct ios_json j;
    ios_json_init(&j);
    ios_json_begin_object(&j, NULL);
    ios_json_string(&j, "s", "a\"b\\c\n\x01");
    ios_json_int(&j, "i", -42);
    ios_json_double(&j, "d", 0.5);
    ios_json_double(&j, "nan", NAN);
    ios_json_fixed(&j, "f4", 2.0 / 3.0, 4);
    ios_json_fixed(&j, "f4whole", 12.0, 4);
    ios_json_fixed(&j, "inf", INFINITY, 4);
    ios_json_fixed(&j, "fnan", NAN, 4);
    ios_json_bool(&j, "t", 1);
    ios_json_string(&j, "null", NULL);
    ios_json_begin_array(&j, "empty");
    ios_json_end_array(&j);
    ios_json_begin_array(&j, "list");
    ios_json_int(&j, NULL, 1);
    ios_json_begin_object(&j, NULL);
    ios_json_end_object(&j);
    ios_json_end_array(&j);
    ios_json_end_object(&j);
    const char *expected = "{\n"
                           "  \"s\": \"a\\\"b\\\\c\\n\\u0001\",\n"
                           "  \"i\": -42,\n"
                           "  \"d\": 0.5,\n"
                           "  \"nan\": null,\n"
                           "  \"f4\": 0.6667,\n"
                           "  \"f4whole\": 12.0000,\n"
                           "  \"inf\": \"inf\",\n"
                           "  \"fnan\": null,\n"
                           "  \"t\": true,\n"
                           "  \"null\": null,\n"
                           "  \"empty\": [],\n"
                           "  \"list\": [\n"
                           "    1,\n"
                           "    {}\n"
                           "  ]\n"
                           "}";
    CHECK(strcmp(j.buf, expected) == 0);
    if (strcmp(j.buf, expected) != 0)
        fprintf(stderr, "got:\n%s\n", j.buf);
    ios_json_free(&j);
    return check_finish();
}
