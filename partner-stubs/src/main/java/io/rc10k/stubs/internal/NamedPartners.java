package io.rc10k.stubs.internal;

import java.util.Locale;
import java.util.Random;

/**
 * The demo's realistic partners — weather, hotels, flights — with JSON that depends only on the city,
 * so every run and every mode sees the same answers.
 */
public final class NamedPartners {
    public static final String WEATHER = "/weather";
    public static final String HOTELS = "/hotels";
    public static final String FLIGHTS = "/flights";

    private static final String[] SKIES = {"sunny", "cloudy", "rain", "showers", "fog", "snow", "windy"};
    private static final String[] DAYS = {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"};
    private static final String[] HOTEL_WORDS = {"Grand", "Central", "Riverside", "Garden", "Station", "Old Town"};
    private static final String[] AIRLINES = {"RC", "LD", "IC"};
    private static final String[] ORIGINS = {"LHR", "FRA", "AMS", "MAD", "YXE", "JFK", "NRT"};

    private NamedPartners() {
    }

    public static boolean isNamed(String path) {
        return WEATHER.equals(path) || HOTELS.equals(path) || FLIGHTS.equals(path);
    }

    public static String body(String path, String city) {
        Random random = new Random(city.toLowerCase(Locale.ROOT).hashCode() * 31L + path.hashCode());
        return switch (path) {
            case WEATHER -> weather(city, random);
            case HOTELS -> hotels(city, random);
            case FLIGHTS -> flights(city, random);
            default -> throw new IllegalArgumentException("not a named partner: " + path);
        };
    }

    private static String weather(String city, Random random) {
        StringBuilder json = new StringBuilder("{\"city\":").append(Json.quote(city)).append(",\"forecast\":[");
        for (int day = 0; day < 3; day++) {
            int low = random.nextInt(30) - 5;
            json.append(day == 0 ? "" : ",")
                    .append("{\"day\":\"").append(DAYS[day]).append('"')
                    .append(",\"sky\":\"").append(SKIES[random.nextInt(SKIES.length)]).append('"')
                    .append(",\"lowC\":").append(low)
                    .append(",\"highC\":").append(low + 3 + random.nextInt(10)).append('}');
        }
        return json.append("]}").toString();
    }

    private static String hotels(String city, Random random) {
        StringBuilder json = new StringBuilder("{\"city\":").append(Json.quote(city)).append(",\"hotels\":[");
        for (int i = 0; i < 3; i++) {
            json.append(i == 0 ? "" : ",")
                    .append("{\"name\":").append(Json.quote("Hotel " + HOTEL_WORDS[random.nextInt(HOTEL_WORDS.length)]
                            + " " + city))
                    .append(",\"stars\":").append(2 + random.nextInt(4))
                    .append(",\"pricePerNight\":{\"amount\":").append(60 + random.nextInt(300))
                    .append(",\"currency\":\"EUR\"}}");
        }
        return json.append("]}").toString();
    }

    private static String flights(String city, Random random) {
        StringBuilder json = new StringBuilder("{\"to\":").append(Json.quote(city)).append(",\"flights\":[");
        for (int i = 0; i < 3; i++) {
            json.append(i == 0 ? "" : ",")
                    .append("{\"number\":\"").append(AIRLINES[random.nextInt(AIRLINES.length)])
                    .append(100 + random.nextInt(900)).append('"')
                    .append(",\"from\":\"").append(ORIGINS[random.nextInt(ORIGINS.length)]).append('"')
                    .append(",\"departs\":\"").append(String.format(Locale.ROOT, "%02d:%02d", 6 + random.nextInt(16),
                            5 * random.nextInt(12))).append('"')
                    .append(",\"price\":{\"amount\":").append(80 + random.nextInt(700))
                    .append(",\"currency\":\"EUR\"}}");
        }
        return json.append("]}").toString();
    }
}
