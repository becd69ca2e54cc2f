"""What a page shows, worked out from the query functions' frames: pure functions, no Streamlit.

One module per page that needs more than a line of it (the page script only draws: STYLE
"Pages only draw"). Each takes mart rows as the queries return them and gives back rows,
labels or texts to draw; the tests call them on literal frames.
"""
