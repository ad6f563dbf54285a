package io.rc10k.mashup;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import io.rc10k.mashup.UriTemplate;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class UriTemplateTest {
    private static final UriTemplate TEMPLATE = UriTemplate.parse("/items/{id}?q={q}&fixed=1");

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "plain|/items/plain?q=plain&fixed=1",
        "../etc/passwd|/items/..%2Fetc%2Fpasswd?q=..%2Fetc%2Fpasswd&fixed=1",
        "a%2Fb|/items/a%252Fb?q=a%252Fb&fixed=1",
        "x%00y|/items/x%2500y?q=x%2500y&fixed=1",
        "@evil.example|/items/%40evil.example?q=%40evil.example&fixed=1",
        "http://evil.example/|/items/http%3A%2F%2Fevil.example%2F?q=http%3A%2F%2Fevil.example%2F&fixed=1",
        "a&fixed=2#frag|/items/a%26fixed%3D2%23frag?q=a%26fixed%3D2%23frag&fixed=1",
        "São Paulo|/items/S%C3%A3o%20Paulo?q=S%C3%A3o%20Paulo&fixed=1",
    })
    void valuesArePercentEncodedAndCannotChangeTheUri(String value, String expected) {
        assertEquals(expected, TEMPLATE.expand(Map.of("id", value, "q", value)));
    }

    @Test
    void lineBreaksAreEncodedToo() {
        assertEquals("/items/a%0D%0AHost%3A%20evil?q=x&fixed=1",
                TEMPLATE.expand(Map.of("id", "a\r\nHost: evil", "q", "x")));
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "weather", "//evil.example/x", "http://evil.example/x", "/x#frag", "/x?{name}=1",
        "/x/{unclosed", "/a b", "/x/../y", "/x/{not a name}"})
    void templatesThatCouldLeaveThePathAreRefused(String template) {
        assertThrows(IllegalArgumentException.class, () -> UriTemplate.parse(template));
    }
}
