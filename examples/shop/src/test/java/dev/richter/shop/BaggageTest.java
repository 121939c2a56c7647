package dev.richter.shop;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class BaggageTest {

  private static boolean marked(String... headerLines) {
    return Marker.DEFAULT.isMarked(Arrays.asList(headerLines));
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "richter-loadtest=1",
      "  richter-loadtest = 1  ",
      "\trichter-loadtest=1\t",
      "userId=alice,richter-loadtest=1",
      "userId=alice , richter-loadtest=1 , tenant=t1",
      "richter-loadtest=1;metadata",
      "richter-loadtest=1 ; prop=x ; flag",
      "richter-loadtest=%31",
      "bad key=1,richter-loadtest=1",
      "novalue,richter-loadtest=1",
      "k=%zz,richter-loadtest=1",
      ",,richter-loadtest=1,,",
      "richter-loadtest=0,richter-loadtest=1",
  })
  void recognisesTheMarkerMember(String header) {
    assertTrue(marked(header), header);
  }

  @ParameterizedTest
  @ValueSource(strings = {
      "",
      "richter-loadtest=0",
      "richter-loadtest=1x",
      "richter-loadtest=",
      "richter-loadtest",
      "xrichter-loadtest=1",
      "Richter-Loadtest=1",
      "a=b;richter-loadtest=1",
      "richter-loadtest=1,richter-loadtest=0",
      "richter-loadtest=%3",
  })
  void rejectsEverythingElse(String header) {
    assertFalse(marked(header), header);
  }

  @Test
  void noHeaderIsUnmarked() {
    assertFalse(Marker.DEFAULT.isMarked(null));
    assertFalse(Marker.DEFAULT.isMarked(List.of()));
  }

  @Test
  void severalHeaderLinesFormOneList() {
    assertTrue(marked("userId=alice", "richter-loadtest=1"));
    assertEquals(Map.of("a", "1", "b", "2"), Baggage.parse(List.of("a=1", "b=2")));
  }

  @Test
  void valuesArePercentDecodedAsUtf8AndPlusStaysPlus() {
    Map<String, String> m = Baggage.parse("s=hello%20world, e=%E2%82%AC, p=a+b, q=%2C%3B%3D");
    assertEquals("hello world", m.get("s"));
    assertEquals("€", m.get("e"));
    assertEquals("a+b", m.get("p"));
    assertEquals(",;=", m.get("q"));
  }

  @Test
  void configuredMarkerIsHonoured() {
    Marker custom = new Marker("x-shadow", "yes");
    assertTrue(custom.isMarked(List.of("x-shadow=yes")));
    assertFalse(custom.isMarked(List.of("richter-loadtest=1")));
  }
}
