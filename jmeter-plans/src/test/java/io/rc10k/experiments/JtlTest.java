package io.rc10k.experiments;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class JtlTest {
    @TempDir
    Path dir;

    @Test
    void readsJMeterCsvWithQuotedFieldsAndSkipsALineCutShort() throws Exception {
        Path jtl = dir.resolve("r.jtl");
        Files.writeString(jtl, String.join("\n",
                "timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,"
                        + "bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect",
                "1000,1005,mashup,200,OK,Users 1-1,text,true,,417,128,1,1,http://h/mashup/paper,1000,0,3",
                "2000,30,mashup,Non HTTP response code: java.net.SocketException,\"Non HTTP response message: "
                        + "Connection reset, by peer\",Users 1-2,text,false,\"say \"\"why\"\"\",0,0,1,1,"
                        + "http://h/mashup/paper,0,0,0",
                "3000,12,mashup,503"));
        List<Jtl.Sample> samples = Jtl.read(jtl);
        assertEquals(2, samples.size());
        assertTrue(samples.get(0).ok());
        assertEquals(2005, samples.get(0).end());
        assertEquals(3, samples.get(0).connect());
        assertFalse(samples.get(1).ok());
        assertEquals("Non HTTP response code: java.net.SocketException", samples.get(1).code());
        assertEquals(List.of("a", "b,c", "d\"e", ""), Jtl.fields("a,\"b,c\",\"d\"\"e\","));
    }
}
